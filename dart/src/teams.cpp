// Team creation and destruction: to be written.

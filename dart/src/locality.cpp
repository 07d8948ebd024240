// dart_team_locality_* and dart_domain_*: to be written.

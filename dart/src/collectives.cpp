// dart_barrier is in onesided.cpp for now; the other collectives and two-sided messages go here.

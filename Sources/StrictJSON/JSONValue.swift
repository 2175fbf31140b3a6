// StrictJSON — JSON parser and writer (in progress).

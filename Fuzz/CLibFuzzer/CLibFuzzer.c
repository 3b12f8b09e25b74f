// Empty: the header declares a function of the libFuzzer runtime (a C target needs a source).

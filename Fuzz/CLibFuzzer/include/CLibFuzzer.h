// libFuzzer's driver, for fuzz targets that have a main of their own (SwiftPM gives every
// executable one): it parses libFuzzer's flags from argc/argv and fuzzes `test`. Defined in
// the libFuzzer runtime that -sanitize=fuzzer links in.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

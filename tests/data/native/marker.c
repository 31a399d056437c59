/* A "parser library" that proves whether it was loaded: dlopen runs its constructor, which appends a line to
   the file named by SGTOOLS_TEST_MARKER. It exports tree_sitter_marker but is no grammar (a trusted load then
   fails at the symbol or the parse, after the constructor ran). Built by the tests with the system C compiler. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void sgtools_test_mark(void) {
    const char *path = getenv("SGTOOLS_TEST_MARKER");
    if (!path) return;
    FILE *f = fopen(path, "a");
    if (f) { fputs("loaded\n", f); fclose(f); }
}

const void *tree_sitter_marker(void) { return NULL; }

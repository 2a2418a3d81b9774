/* PAPI's pe_libpfm4_events.c as the build's copy of PAPI has it (patched by
 * patches/papi/), compiled again with AddressSanitizer for
 * cpu_papi_shutdown_tables, with PAPI's own flags.  Nothing of PAPI is kept
 * in this repository: the file is included from papi-build/. */
#include "components/perf_event/pe_libpfm4_events.c"

/* catalog_code.h: an event's code in the callback source's catalogue, for the
 * unit tests and bench_hotpath, whose names are fixed: a name that is not
 * there is the program's own error, reported and exited on (status 2). */
#ifndef CATALOG_CODE_H
#define CATALOG_CODE_H

#include <stdio.h>
#include <stdlib.h>

#include "cupti_cb_callback_catalog.h"

static uint32_t catalog_code(const struct cupti_cb_catalog *cat, const char *name)
{
	uint32_t code = 0;
	if (cupti_cb_catalog_parse(cat, name, &code)) {
		fprintf(stderr, "no event %s in the catalogue\n", name);
		exit(2);
	}
	return code;
}

#endif

/*
 * cupti_cb_inject_symbols.h: names for the return addresses of the flame graph's stacks, found
 * once per distinct address, at the end of the process (never while it runs).
 *
 * An address belongs to a loaded object (dl_iterate_phdr); its function is the symbol that
 * covers it in the object's own file: the full symbol table (.symtab) when the file has one,
 * which names static functions and a program linked without -rdynamic, else the dynamic one
 * (.dynsym).  C++ names are demangled by libstdc++'s __cxa_demangle (found in the process, or
 * loaded).  An address in no object is looked up in /tmp/perf-PID.map, which Python 3.12
 * writes with -X perf or PYTHONPERFSUPPORT=1 (one line per Python function's trampoline:
 * "START SIZE py::name:file").  Otherwise the frame is named [object] or [unknown].
 */
#ifndef CUPTI_CB_INJECT_SYMBOLS_H
#define CUPTI_CB_INJECT_SYMBOLS_H

#include <stdint.h>

struct cupti_cb_inj_symbols;

struct cupti_cb_inj_frame {
	const char *name;	/* the function (demangled), or [object], or [unknown] */
	const char *raw;	/* the symbol as the file spells it (mangled), or NULL */
	const char *object;	/* the file name of its object, or NULL */
	int cuda;		/* in CUDA, CUPTI, PAPI or this library: not the program's own code */
};

struct cupti_cb_inj_symbols *cupti_cb_inj_symbols_open(void);
/* The frame of return address pc (the call is at pc - 1).  The strings live until close. */
void cupti_cb_inj_symbols_frame(struct cupti_cb_inj_symbols *y, uintptr_t pc, struct cupti_cb_inj_frame *f);
/* name demangled when it is a C++ name (a string that lives until close), else name. */
const char *cupti_cb_inj_symbols_demangle(struct cupti_cb_inj_symbols *y, const char *name);
void cupti_cb_inj_symbols_close(struct cupti_cb_inj_symbols *y);

#endif /* CUPTI_CB_INJECT_SYMBOLS_H */

/* cupti_cb_inject_symbols.c: see cupti_cb_inject_symbols.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cupti_cb_inject_symbols.h"

struct sym {
	uintptr_t lo, hi;	/* [lo, hi) relative to the object's load address */
	const char *name;
};

struct object {
	uintptr_t base, lo, hi;	/* load address; the span of its loaded segments */
	char *path;
	const char *base_name;
	int cuda;
	int loaded;		/* symbols read (or tried) */
	void *map;
	size_t map_len;
	struct sym *syms;
	size_t n_syms;
};

struct perf_sym {
	uintptr_t lo, hi;
	char *name;
};

struct cached {
	uintptr_t pc;
	struct cupti_cb_inj_frame f;
};

struct cupti_cb_inj_symbols {
	struct object *objs;
	size_t n_objs;
	struct perf_sym *perf;
	size_t n_perf;
	char *(*demangle)(const char *, char *, size_t *, int *);
	struct cached *cache;	/* open addressing by pc; grows at half full */
	size_t cache_cap, cache_n;
	char **strings;		/* every string made here, freed at close */
	size_t n_strings, cap_strings;
};

static const char *keep(struct cupti_cb_inj_symbols *y, char *s)
{
	if (!s)
		return NULL;
	if (y->n_strings == y->cap_strings) {
		size_t cap = y->cap_strings ? 2 * y->cap_strings : 256;
		char **p = realloc(y->strings, cap * sizeof *p);
		if (!p) {
			free(s);
			return NULL;
		}
		y->strings = p;
		y->cap_strings = cap;
	}
	return y->strings[y->n_strings++] = s;
}

/* The objects that are not the program's code: CUDA's, CUPTI's, PAPI's and this library's. */
static int cuda_object(const char *base)
{
	static const char *const prefixes[] = { "libcupti", "libcuda.", "libcudart", "libpapi.", "libpfm.",
						"libnvperf", "libjansson." };
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct cupti_cb_inj_symbols *y = arg;
	struct object o = { .base = info->dlpi_addr, .lo = UINTPTR_MAX };
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (lo < o.lo)
			o.lo = lo;
		if (lo + ph->p_memsz > o.hi)
			o.hi = lo + ph->p_memsz;
	}
	const char *name = info->dlpi_name;
	char exe[4096];
	if (!name || !*name) {	/* the program itself */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		name = exe;
	}
	o.path = strdup(name);
	if (!o.path || o.lo >= o.hi) {
		free(o.path);
		return 0;
	}
	const char *slash = strrchr(o.path, '/');
	o.base_name = slash ? slash + 1 : o.path;
	o.cuda = cuda_object(o.base_name);
	struct object *p = realloc(y->objs, (y->n_objs + 1) * sizeof *p);
	if (!p) {
		free(o.path);
		return 0;
	}
	y->objs = p;
	y->objs[y->n_objs++] = o;
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	uintptr_t x = ((const struct sym *)a)->lo, z = ((const struct sym *)b)->lo;
	return x < z ? -1 : x > z;
}

/* The function symbols of one symbol table section. */
static void read_table(struct object *o, const ElfW(Ehdr) *eh, const ElfW(Shdr) *sh, const ElfW(Shdr) *st)
{
	const char *base = o->map;
	if (st->sh_link >= eh->e_shnum || sh[st->sh_link].sh_offset + sh[st->sh_link].sh_size > o->map_len ||
	    st->sh_offset + st->sh_size > o->map_len || st->sh_entsize != sizeof(ElfW(Sym)))
		return;
	const char *strs = base + sh[st->sh_link].sh_offset;
	size_t strs_len = sh[st->sh_link].sh_size;
	const ElfW(Sym) *s = (const void *)(base + st->sh_offset);
	size_t n = st->sh_size / sizeof *s;
	o->syms = malloc((n ? n : 1) * sizeof *o->syms);
	if (!o->syms)
		return;
	for (size_t i = 0; i < n; i++) {
		int type = ELF64_ST_TYPE(s[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF || !s[i].st_value ||
		    s[i].st_name >= strs_len)
			continue;
		o->syms[o->n_syms++] = (struct sym){ s[i].st_value, s[i].st_value + (s[i].st_size ? s[i].st_size : 1),
						     strs + s[i].st_name };
	}
	qsort(o->syms, o->n_syms, sizeof *o->syms, by_lo);
}

/* The object's file, mapped: its .symtab, else its .dynsym. */
static void load_symbols(struct object *o)
{
	o->loaded = 1;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(ElfW(Ehdr))) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			o->map = m;
			o->map_len = (size_t)st.st_size;
		}
	}
	close(fd);
	if (!o->map)
		return;
	const ElfW(Ehdr) *eh = o->map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > o->map_len)
		return;
	const ElfW(Shdr) *sh = (const void *)((const char *)o->map + eh->e_shoff);
	const ElfW(Shdr) *tab = NULL;
	for (int want = SHT_SYMTAB; !tab && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
		for (int i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == (unsigned)want && sh[i].sh_size)
				tab = &sh[i];
	if (tab)
		read_table(o, eh, sh, tab);
}

static const char *find_sym(struct object *o, uintptr_t rel)
{
	if (!o->loaded)
		load_symbols(o);
	size_t lo = 0, hi = o->n_syms;
	while (lo < hi) {	/* the last symbol that starts at or below rel */
		size_t mid = (lo + hi) / 2;
		if (o->syms[mid].lo <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Symbols may nest (aliases, a function's cold part): the innermost that covers rel. */
	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (rel < o->syms[i].hi)
			return o->syms[i].name;
	return NULL;
}

static int perf_by_lo(const void *a, const void *b)
{
	uintptr_t x = ((const struct perf_sym *)a)->lo, z = ((const struct perf_sym *)b)->lo;
	return x < z ? -1 : x > z;
}

/* /tmp/perf-PID.map, when the process writes one (Python 3.12's perf support). */
static void load_perf_map(struct cupti_cb_inj_symbols *y)
{
	char path[64], line[4096];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long start, size;
		int at = 0;
		if (sscanf(line, "%llx %llx %n", &start, &size, &at) != 2 || !at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (y->n_perf == cap) {
			size_t c = cap ? 2 * cap : 1024;
			struct perf_sym *p = realloc(y->perf, c * sizeof *p);
			if (!p)
				break;
			y->perf = p;
			cap = c;
		}
		char *name = strdup(line + at);
		if (!name)
			break;
		y->perf[y->n_perf++] = (struct perf_sym){ (uintptr_t)start, (uintptr_t)(start + size), name };
	}
	fclose(f);
	qsort(y->perf, y->n_perf, sizeof *y->perf, perf_by_lo);
}

static const char *find_perf(const struct cupti_cb_inj_symbols *y, uintptr_t pc)
{
	size_t lo = 0, hi = y->n_perf;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (y->perf[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < y->perf[lo - 1].hi ? y->perf[lo - 1].name : NULL;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct cupti_cb_inj_symbols *cupti_cb_inj_symbols_open(void)
{
	struct cupti_cb_inj_symbols *y = calloc(1, sizeof *y);
	if (!y)
		return NULL;
	dl_iterate_phdr(add_object, y);
	load_perf_map(y);
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		f = h ? dlsym(h, "__cxa_demangle") : NULL;
	}
	*(void **)&y->demangle = f;
	return y;
}

const char *cupti_cb_inj_symbols_demangle(struct cupti_cb_inj_symbols *y, const char *name)
{
	int status = -1;
	if (!name || strncmp(name, "_Z", 2) || !y->demangle)
		return name;
	char *d = y->demangle(name, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		return name;
	}
	const char *kept = keep(y, d);
	return kept ? kept : name;
}

/* Names that are the CUDA runtime's (linked statically into the program or a library),
 * nvcc's launch stubs, or a CUDA API: the program's call into CUDA starts there. */
static int cuda_name(const char *n)
{
	return !strncmp(n, "cuda", 4) || !strncmp(n, "__cuda", 6) || !strncmp(n, "__device_stub", 13) ||
	       (n[0] == 'c' && n[1] == 'u' && n[2] >= 'A' && n[2] <= 'Z');
}

/* A compiler's copy of a function (foo.constprop.0, foo.isra.0, foo.part.0, foo.cold, ...) is
 * named as the function: the frame is the function the program's author wrote. */
static const char *without_clone(struct cupti_cb_inj_symbols *y, const char *raw)
{
	static const char *const clones[] = { ".constprop.", ".isra.", ".part.", ".cold", ".lto_priv.", ".clone." };
	size_t cut = strlen(raw);
	for (size_t i = 0; i < sizeof clones / sizeof clones[0]; i++) {
		const char *at = strstr(raw, clones[i]);
		if (at && (size_t)(at - raw) < cut)
			cut = (size_t)(at - raw);
	}
	if (cut == strlen(raw) || cut == 0)
		return raw;
	const char *kept = keep(y, strndup(raw, cut));
	return kept ? kept : raw;
}

static void resolve(struct cupti_cb_inj_symbols *y, uintptr_t pc, struct cupti_cb_inj_frame *f)
{
	uintptr_t at = pc - 1;
	*f = (struct cupti_cb_inj_frame){ "[unknown]", NULL, NULL, 0 };
	for (size_t i = 0; i < y->n_objs; i++) {
		struct object *o = &y->objs[i];
		if (at < o->lo || at >= o->hi)
			continue;
		const char *raw = find_sym(o, at - o->base);
		f->object = o->base_name;
		if (raw) {
			raw = without_clone(y, raw);
			f->raw = raw;
			f->name = cupti_cb_inj_symbols_demangle(y, raw);
			f->cuda = o->cuda || cuda_name(f->name);
		} else {
			char *b = malloc(strlen(o->base_name) + 3);
			if (b)
				sprintf(b, "[%s]", o->base_name);
			const char *kept = keep(y, b);
			f->name = kept ? kept : "[unknown]";
			f->cuda = o->cuda;
		}
		return;
	}
	const char *p = find_perf(y, at);
	if (p)
		f->name = p;
}

void cupti_cb_inj_symbols_frame(struct cupti_cb_inj_symbols *y, uintptr_t pc, struct cupti_cb_inj_frame *f)
{
	if (y->cache_n * 2 >= y->cache_cap) {	/* grow: rehash into a table twice as large */
		size_t cap = y->cache_cap ? 2 * y->cache_cap : 4096;
		struct cached *c = calloc(cap, sizeof *c);
		if (!c) {
			resolve(y, pc, f);
			return;
		}
		for (size_t i = 0; i < y->cache_cap; i++)
			if (y->cache[i].pc) {
				size_t j = (y->cache[i].pc * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
				while (c[j].pc)
					j = (j + 1) & (cap - 1);
				c[j] = y->cache[i];
			}
		free(y->cache);
		y->cache = c;
		y->cache_cap = cap;
	}
	size_t j = (pc * 0x9e3779b97f4a7c15ull >> 20) & (y->cache_cap - 1);
	while (y->cache[j].pc && y->cache[j].pc != pc)
		j = (j + 1) & (y->cache_cap - 1);
	if (!y->cache[j].pc) {
		y->cache[j].pc = pc;
		resolve(y, pc, &y->cache[j].f);
		y->cache_n++;
	}
	*f = y->cache[j].f;
}

void cupti_cb_inj_symbols_close(struct cupti_cb_inj_symbols *y)
{
	if (!y)
		return;
	for (size_t i = 0; i < y->n_objs; i++) {
		if (y->objs[i].map)
			munmap(y->objs[i].map, y->objs[i].map_len);
		free(y->objs[i].syms);
		free(y->objs[i].path);
	}
	for (size_t i = 0; i < y->n_perf; i++)
		free(y->perf[i].name);
	for (size_t i = 0; i < y->n_strings; i++)
		free(y->strings[i]);
	free(y->strings);
	free(y->perf);
	free(y->objs);
	free(y->cache);
	free(y);
}

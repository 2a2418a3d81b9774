/* dlopen_app: stands in for a CUDA program on a machine without a driver:
 * it tries to load the library named (as the CUDA runtime loads
 * libcuda.so.1 at its first call) and exits 0 whether or not it could. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dlopen_app LIBRARY\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
	if (h)
		dlclose(h);
	return 0;
}

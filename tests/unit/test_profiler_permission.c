/* test_profiler_permission: whether the GPU's performance counters are restricted to
 * administrators, from the driver's parameters (cupti_cb_profiler_permission.c). */
#include <unistd.h>
#include <stdlib.h>

#include "check.h"
#include "cupti_cb_profiler_permission.h"

int main(void)
{
	static const char restricted[] = "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nEnableMSI: 1\n";
	static const char open_to_all[] = "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 0\nEnableMSI: 1\n";
	CHECK_EQ(cupti_cb_profiler_permission_restricted(restricted, 0), 1, "RmProfilingAdminOnly: 1, not an administrator");
	CHECK_EQ(cupti_cb_profiler_permission_restricted(restricted, 1), 0, "RmProfilingAdminOnly: 1, an administrator");
	CHECK_EQ(cupti_cb_profiler_permission_restricted(open_to_all, 0), 0, "RmProfilingAdminOnly: 0");
	CHECK_EQ(cupti_cb_profiler_permission_restricted("EnableMSI: 1\n", 0), -1, "a driver that does not say");
	CHECK_EQ(cupti_cb_profiler_permission_restricted("RmProfilingAdminOnly: x\n", 0), -1, "a value that is not 0 or 1");
	CHECK_EQ(cupti_cb_profiler_permission_restricted(NULL, 0), -1, "no file");
	/* A file that cannot be read says nothing. */
	CHECK_EQ(cupti_cb_profiler_permission_restricted_here("/nonexistent/params"), -1, "a file that cannot be read");
	/* A file that says so: restricted, unless this process is an administrator (root here?). */
	char path[] = "/tmp/test_profiler_permission_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, restricted, sizeof restricted - 1) == (ssize_t)(sizeof restricted - 1),
	      "a file of parameters written");
	close(fd);
	CHECK_EQ(cupti_cb_profiler_permission_restricted_here(path), geteuid() == 0 ? 0 : 1,
		 "this process, from the file: 0 as root, 1 otherwise");
	unlink(path);
	return checks_done();
}

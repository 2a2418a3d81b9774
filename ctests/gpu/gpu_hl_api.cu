/*
 * gpu_hl_api: cupti_cb through PAPI's high-level API, as a user runs it:
 * PAPI_EVENTS names the events (one with the '='-free device spelling),
 * PAPI_hl_region_begin/end mark a region, and PAPI writes its JSON report at
 * exit. The region holds 7 launches and 3 host-to-device copies of 1234
 * bytes; the report must say exactly that.
 *
 * The measured program is this one, run again as a child process ("child"
 * argument), because the report is written when that process exits.
 */
#include "ctest_util.h"

#include <ctype.h>
#include <dirent.h>

static const char *const EVENTS =
    "cupti_cb:::kernel.launches,cupti_cb:::memcpy.bytes_htod:device0,cupti_cb:::cudaMemcpy.calls";

static int child(void)
{
    require_gpu(1);
    ct_use_device(0);
    ct_launch(1, 0);
    CUDA_MUST(cudaDeviceSynchronize());
    char host[1234] = {0};
    void *dev;
    CUDA_MUST(cudaMalloc(&dev, sizeof host));
    if (PAPI_hl_region_begin("work") != PAPI_OK)
        ct_fatal("PAPI_hl_region_begin failed");
    ct_launch(7, 0);
    for (int i = 0; i < 3; i++)
        CUDA_MUST(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
    if (PAPI_hl_region_end("work") != PAPI_OK)
        ct_fatal("PAPI_hl_region_end failed");
    CUDA_MUST(cudaFree(dev));
    return 0;
}

/* The whole report of the one process, from <dir>/papi_hl_output/. */
static std::string read_report(const char *dir)
{
    std::string out = std::string(dir) + "/papi_hl_output", text;
    DIR *d = opendir(out.c_str());
    if (!d)
        ct_fatal("no report directory %s", out.c_str());
    for (struct dirent *e = readdir(d); e != nullptr; e = readdir(d)) {
        std::string name = e->d_name;
        if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json"))
            continue;
        FILE *f = fopen((out + "/" + name).c_str(), "r");
        for (int c; f && (c = fgetc(f)) != EOF;)
            text += (char)c;
        if (f)
            fclose(f);
    }
    closedir(d);
    return text;
}

/* The value of <event> in the region's record: the report writes
 * "event":"N", or "event":{"region_value":"N",...} when it holds several
 * reads. The search starts at the region's name, past the definitions. */
static long long quoted_number_at(const std::string &s, size_t at)
{
    while (at < s.size() && isspace((unsigned char)s[at]))
        at++;
    if (at + 1 >= s.size() || s[at] != '"' || !isdigit((unsigned char)s[at + 1]))
        return -1;
    return atoll(s.c_str() + at + 1);
}

static long long reported(const std::string &report, const char *event)
{
    std::string key = std::string("\"") + event + "\":", inner = "\"region_value\":";
    size_t at = report.find("\"work\"");
    if (at == std::string::npos || (at = report.find(key, at)) == std::string::npos)
        return -1;
    at += key.size();
    while (at < report.size() && isspace((unsigned char)report[at]))
        at++;
    if (at < report.size() && report[at] == '{') {
        if ((at = report.find(inner, at)) == std::string::npos)
            return -1;
        at += inner.size();
    }
    return quoted_number_at(report, at);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();

    char dir[] = "/tmp/cupti_cb_hl_XXXXXX";
    if (!mkdtemp(dir))
        ct_fatal("mkdtemp failed");
    setenv("PAPI_OUTPUT_DIRECTORY", dir, 1);
    setenv("PAPI_EVENTS", EVENTS, 1);
    int status = ct_run_self(argv[0], "child", nullptr, nullptr);
    if (status == 77)
        ct_skip("the measured child found no GPU");
    CHECK_EQ("measured child exit status", status, 0);

    std::string report = read_report(dir);
    ct_note("report: %s", report.c_str());
    CHECK_TRUE("the report names the region", report.find("\"work\"") != std::string::npos);
    CHECK_EQ("kernel.launches in the region", reported(report, "cupti_cb:::kernel.launches"), 7);
    CHECK_EQ("memcpy.bytes_htod:device0 in the region",
             reported(report, "cupti_cb:::memcpy.bytes_htod:device0"), 3 * 1234);
    CHECK_EQ("cudaMemcpy.calls in the region", reported(report, "cupti_cb:::cudaMemcpy.calls"), 3);
    return ct_done();
}

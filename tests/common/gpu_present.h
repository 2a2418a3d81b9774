/*
 * gpu_present.h: is there an NVIDIA GPU on this machine, whatever CUDA says?
 * Shared by the GPU tests (ctest_util.h) and the benchmark (bench_util.h):
 * both skip only where there is no GPU, and fail where one is present but
 * CUDA cannot use it.
 */
#ifndef CUPTI_CB_GPU_PRESENT_H
#define CUPTI_CB_GPU_PRESENT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

/* Does dir hold an entry other than "." and ".."?  Its first such name goes to name. */
static inline int gpu_dir_has_entry(const char *dir, char *name, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    if (!d)
        return 0;
    while (!found && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(name, len, "%s", e->d_name);
            found = 1;
        }
    closedir(d);
    return found;
}

/*
 * Is an NVIDIA GPU on this machine, whether or not CUDA can use it?  Looks at what exists
 * without CUDA: the driver's /proc/driver/nvidia/gpus, its /dev/nvidiactl and /dev/nvidia0,
 * `nvidia-smi -L`, and PCI display controllers of vendor 0x10de.  On yes, the evidence goes
 * to why.  Used to tell "no GPU" (SKIP) from "a GPU that CUDA cannot use" (FAIL).
 */
static inline int gpu_present(char *why, size_t len)
{
    char name[256], line[512];
    FILE *f;
    if (gpu_dir_has_entry("/proc/driver/nvidia/gpus", name, sizeof name)) {
        snprintf(why, len, "/proc/driver/nvidia/gpus/%s exists", name);
        return 1;
    }
    if (access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0) {
        snprintf(why, len, "%s exists",
                 access("/dev/nvidiactl", F_OK) == 0 ? "/dev/nvidiactl" : "/dev/nvidia0");
        return 1;
    }
    if ((f = popen("nvidia-smi -L 2>/dev/null", "r")) != NULL) {
        int found = 0;
        while (!found && fgets(line, sizeof line, f))
            if (strncmp(line, "GPU ", 4) == 0) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(why, len, "nvidia-smi -L lists \"%s\"", line);
                found = 1;
            }
        pclose(f);
        if (found)
            return 1;
    }
    DIR *d = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        char path[512];
        unsigned vendor = 0, cls = 0;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", e->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%x", &vendor) != 1)
                vendor = 0;
            fclose(f);
        }
        if (vendor != 0x10de)
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", e->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%x", &cls) != 1)
                cls = 0;
            fclose(f);
        }
        if ((cls >> 16) == 0x03) { /* display controller: VGA or 3D */
            snprintf(why, len, "PCI device %s is an NVIDIA display controller (class 0x%06x)",
                     e->d_name, cls);
            found = 1;
        }
    }
    if (d)
        closedir(d);
    return found;
}


#endif

#ifndef REVLINE_STORE_PROCESS_H
#define REVLINE_STORE_PROCESS_H

#include <stdint.h>
#include <sys/types.h>

/*
 * When a process started (clock ticks since boot, from /proc/PID/stat),
 * or -1 when it cannot be read: with its pid, it tells a process from a
 * later one that was given the same pid.
 */
int64_t process_start(pid_t pid);

#endif

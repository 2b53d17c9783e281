#ifndef REVLINE_PROC_SAMPLE_H
#define REVLINE_PROC_SAMPLE_H

#include <stdint.h>

/*
 * What this process holds now, for the soak test (tests/soak/soak.py): a
 * long session's figures sampled at intervals and their growth fitted
 * against the cycles run. Linux's /proc, and glibc's mallinfo2; a figure
 * that cannot be had is 0 (the heap under AddressSanitizer), or -1 (the
 * descriptors without /proc).
 */
struct proc_sample {
	uint64_t rss_kib;       /* resident memory (/proc/self/statm) */
	uint64_t anon_kib;      /* of it, not the pages of files (the libraries' code paged in) */
	uint64_t heap;          /* bytes malloc has handed out and not had back */
	int64_t fds;            /* open descriptors */
	int64_t clock_us;       /* the monotonic clock */
	int64_t cpu_us;         /* the CPU time of the process's threads so far, user and system */
};

void proc_sample(struct proc_sample *out);

/*
 * One line appended to path: "RSS_KIB ANON_KIB HEAP_BYTES STORE_BYTES FDS
 * CLOCK_US CPU_US", store_bytes what the caller says the store's library holds of
 * the heap (store_memory: SQLite's page cache fills as the database grows,
 * up to its bound).
 */
int proc_sample_write(const char *path, int64_t store_bytes);

#endif

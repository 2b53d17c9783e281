#ifndef REVLINE_DL_H
#define REVLINE_DL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A shared library loaded the first time revline needs it, not when the
 * program starts. libcurl and libpq bring libldap and, through it, GnuTLS,
 * whose constructor parses its ASN.1 tables at every start: half of a
 * start that needs neither (the diff, the first screen, a hook's
 * `revline diff`). curl_lib.h and pg_lib.h each describe one library; the
 * callers call through its table of functions, typed from the library's
 * own header.
 */
struct dl_fn {
	const char *name;       /* the symbol */
	void *slot;             /* the address of the function pointer it goes to */
};

struct dl_lib {
	const char *soname;     /* "libcurl.so.4", the build's (CMake reads it from the library) */
	const char *what;       /* what revline needs it for, for the message */
	const char *package;    /* the Debian package that installs it */
	const struct dl_fn *fns;
	size_t nfns;
	int loaded;             /* set once every symbol is in place (read and written atomically) */
};

/*
 * Loads lib and fills every slot, once for the process (thread-safe; a
 * failure is tried again on the next call). RL_ECONFIG naming the library,
 * what it is for and the package to install, when it or one of its
 * symbols cannot be had.
 */
int dl_load(struct dl_lib *lib);

#endif

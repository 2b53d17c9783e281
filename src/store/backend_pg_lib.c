/* libpq, loaded the first time a team's PostgreSQL store is opened (backend_pg_lib.h). */
#include "backend_pg_lib.h"
#include "dl.h"

struct pg_lib libpq;

static const struct dl_fn fns[] = {
#define PG_LIB_FN(fn) { "PQ" #fn, &libpq.fn },
	PG_LIB_FUNCTIONS(PG_LIB_FN)
#undef PG_LIB_FN
};

static struct dl_lib lib = {
	.soname = REVLINE_LIBPQ_SONAME,         /* the build's, from CMakeLists.txt */
	.what = "the PostgreSQL client a team's shared store needs",
	.package = "libpq5",
	.fns = fns,
	.nfns = sizeof(fns) / sizeof(fns[0]),
};

int pg_lib_load(void)
{
	return dl_load(&lib);
}

/* libcurl, loaded the first time a request is made (curl_lib.h). */
#include "curl_lib.h"
#include "dl.h"

struct curl_lib libcurl;

static const struct dl_fn fns[] = {
#define CURL_LIB_FN(fn) { "curl_" #fn, &libcurl.fn },
	CURL_LIB_FUNCTIONS(CURL_LIB_FN)
#undef CURL_LIB_FN
};

static struct dl_lib lib = {
	.soname = REVLINE_LIBCURL_SONAME,       /* the build's, from CMakeLists.txt */
	.what = "the HTTP client revline's reviews and fixes use",
	.package = "libcurl4",
	.fns = fns,
	.nfns = sizeof(fns) / sizeof(fns[0]),
};

int curl_lib_load(void)
{
	return dl_load(&lib);
}

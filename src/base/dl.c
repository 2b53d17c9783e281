/* A shared library loaded the first time revline needs it (dl.h). */
#include "dl.h"
#include "status.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int load_failed(const struct dl_lib *lib, const char *why)
{
	return error_set(RL_ECONFIG, "cannot load %s, %s: %s; install it (Debian: apt-get install %s)",
			 lib->soname, lib->what, why && *why ? why : "unknown error", lib->package);
}

static int load_locked(struct dl_lib *lib)
{
	void *handle, *sym;
	size_t i;

	/* Never closed: the library's functions are kept in the slots for the life of the process. */
	if (!(handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL)))
		return load_failed(lib, dlerror());
	for (i = 0; i < lib->nfns; i++) {
		dlerror();
		if (!(sym = dlsym(handle, lib->fns[i].name))) {
			const char *why = dlerror();
			int error = load_failed(lib, why ? why : lib->fns[i].name);

			dlclose(handle);
			return error;
		}
		/* POSIX: a function's address from dlsym fits a function pointer; copied, not cast. */
		memcpy(lib->fns[i].slot, &sym, sizeof(sym));
	}
	__atomic_store_n(&lib->loaded, 1, __ATOMIC_RELEASE);
	return 0;
}

int dl_load(struct dl_lib *lib)
{
	int error = 0;

	if (__atomic_load_n(&lib->loaded, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&lock);
	if (!lib->loaded)
		error = load_locked(lib);
	pthread_mutex_unlock(&lock);
	return error;
}

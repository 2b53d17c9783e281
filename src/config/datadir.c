#include "datadir.h"
#include "status.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/../REL of the running program. */
static int beside_program_rel(struct buf *out, const char *rel)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return RL_ENOTFOUND;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return RL_ENOTFOUND;
	*slash = '\0';
	if ((slash = strrchr(exe, '/')))
		*slash = '\0';
	return buf_printf(out, "%s/%s", exe, rel);
}

/* DIR/../share/revline of the running program. */
static int beside_program(struct buf *out)
{
	return beside_program_rel(out, REVLINE_DATADIR_REL);
}

static int try_dir(struct buf *out, const char *kind)
{
	size_t len = out->len;
	int error = buf_printf(out, "/%s", kind);

	if (error < 0)
		return error;
	if (is_dir(out->ptr))
		return 0;
	out->len = len;
	out->ptr[len] = '\0';
	return RL_ENOTFOUND;
}

int datadir_find(struct buf *out, const char *kind)
{
	const char *env = getenv("REVLINE_DATADIR");
	int error;

	buf_clear(out);
	if (env && *env && (error = buf_puts(out, env)) == 0 && try_dir(out, kind) == 0)
		return 0;
	buf_clear(out);
	if (beside_program(out) == 0 && try_dir(out, kind) == 0)
		return 0;
	buf_clear(out);
	if ((error = buf_puts(out, REVLINE_DATADIR_INSTALL)) < 0)
		return error;
	if (try_dir(out, kind) == 0)
		return 0;
	buf_clear(out);
	return error_set(RL_ENOTFOUND, "revline's %s directory was not found (set REVLINE_DATADIR "
			 "to the folder that holds it, or reinstall)", kind);
}

int datadir_user(struct buf *out, const char *kind)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	buf_clear(out);
	if (xdg && *xdg)
		return buf_printf(out, "%s/revline/%s", xdg, kind);
	if (home && *home)
		return buf_printf(out, "%s/.config/revline/%s", home, kind);
	return error_set(RL_ENOTFOUND, "neither XDG_CONFIG_HOME nor HOME is set");
}

int datadir_state(struct buf *out, const char *name)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	buf_clear(out);
	if (xdg && *xdg == '/')
		return buf_printf(out, "%s/revline/%s", xdg, name);
	if (home && *home)
		return buf_printf(out, "%s/.local/share/revline/%s", home, name);
	return error_set(RL_ENOTFOUND, "neither XDG_DATA_HOME nor HOME is set");
}

int datadir_file(struct buf *out, const char *kind, const char *name)
{
	int error;

	if (datadir_user(out, kind) == 0 && buf_printf(out, "/%s", name) == 0 && is_file(out->ptr))
		return 0;
	if ((error = datadir_find(out, kind)) < 0)
		return error;
	if ((error = buf_printf(out, "/%s", name)) < 0)
		return error;
	if (is_file(out->ptr))
		return 0;
	return error_set(RL_ENOTFOUND, "no %s named '%s' (looked in %s)", kind, name, out->ptr);
}

/* The regular files of a folder (no hidden ones) into out; a folder that cannot be read adds none. */
static int names_of(struct strings *out, const char *dir)
{
	struct buf path = BUF_INIT;
	struct dirent *e;
	DIR *d = opendir(dir);
	int error = 0;

	while (d && error == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		buf_clear(&path);
		if ((error = buf_printf(&path, "%s/%s", dir, e->d_name)) == 0 && is_file(path.ptr))
			error = strings_add_unique(out, e->d_name);
	}
	if (d)
		closedir(d);
	buf_release(&path);
	return error;
}

static int names_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int datadir_names(struct strings *out, const char *kind)
{
	struct buf dir = BUF_INIT;
	int error = 0;

	if (datadir_user(&dir, kind) == 0)
		error = names_of(out, dir.ptr);
	if (error == 0 && datadir_find(&dir, kind) == 0)
		error = names_of(out, dir.ptr);
	error_clear();
	buf_release(&dir);
	if (error < 0)
		return error_nomem();
	if (out->count)
		qsort(out->items, out->count, sizeof(*out->items), names_order);
	return 0;
}

int datadir_man(struct buf *out, bool *installed)
{
	int error;

	*installed = false;
	buf_clear(out);
	if (beside_program_rel(out, REVLINE_MANDIR_REL) == 0 && buf_puts(out, "/man1/revline.1") == 0 &&
	    is_file(out->ptr)) {
		*installed = strcmp(out->ptr, REVLINE_MANDIR_INSTALL "/man1/revline.1") == 0;
		return 0;
	}
	buf_clear(out);
	if ((error = buf_printf(out, "%s/man1/revline.1", REVLINE_MANDIR_INSTALL)) < 0)
		return error;
	if (is_file(out->ptr)) {
		*installed = true;
		return 0;
	}
	buf_clear(out);
	return RL_ENOTFOUND;
}

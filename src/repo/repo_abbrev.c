/*
 * Object ids abbreviated as git abbreviates them (git 2.39, object-name.c,
 * repo_find_unique_abbrev_r): the length is core.abbrev, or, when that is
 * unset or "auto", one that grows with the number of packed objects
 * (ceil((msb(count) + 1) / 2) hex digits, at least 7); then an id is made
 * longer until no other object of the repository shares its prefix.
 */
#include "repo.h"
#include "buf.h"

#include <dirent.h>
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define HEXSZ 40
#define FALLBACK_ABBREV 7
#define MIN_ABBREV 4
#define MAX_ALTERNATES 5        /* git follows alternates this deep */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int read_at(unsigned char *out, size_t len, FILE *f, long offset)
{
	return fseek(f, offset, SEEK_SET) == 0 && fread(out, 1, len, f) == len ? 0 : -1;
}

/* The number of objects a pack index holds: the last fan-out entry (v1 or v2). */
static unsigned long idx_count(const char *path)
{
	unsigned char head[8], last[4];
	FILE *f = fopen(path, "rb");
	unsigned long n = 0;

	if (!f)
		return 0;
	if (read_at(head, 8, f, 0) == 0) {
		long fanout = memcmp(head, "\377tOc", 4) == 0 ? 8 : 0;

		if (read_at(last, 4, f, fanout + 255 * 4) == 0)
			n = be32(last);
	}
	fclose(f);
	return n;
}

/*
 * A multi-pack index: its object count, and the names of the packs it
 * covers (NUL-separated, in *names), which git does not count again.
 */
static unsigned long midx_count(struct buf *names, const char *path)
{
	unsigned char head[12], chunk[12], next[12], last[4];
	unsigned long n = 0, oidf = 0, pnam = 0, pnam_end = 0;
	FILE *f = fopen(path, "rb");
	unsigned i;

	if (!f)
		return 0;
	if (read_at(head, 12, f, 0) < 0 || memcmp(head, "MIDX", 4) != 0)
		goto done;
	for (i = 0; i < head[6]; i++) {
		if (read_at(chunk, 12, f, 12 + 12 * (long)i) < 0 ||
		    read_at(next, 12, f, 12 + 12 * (long)(i + 1)) < 0)
			goto done;
		if (!memcmp(chunk, "OIDF", 4))
			oidf = be32(chunk + 8);
		if (!memcmp(chunk, "PNAM", 4)) {
			pnam = be32(chunk + 8);
			pnam_end = be32(next + 8);
		}
	}
	if (!oidf || read_at(last, 4, f, (long)oidf + 255 * 4) < 0)
		goto done;
	n = be32(last);
	if (pnam && pnam_end > pnam && buf_grow(names, pnam_end - pnam + 1) == 0 &&
	    read_at((unsigned char *)names->ptr, pnam_end - pnam, f, (long)pnam) == 0) {
		names->len = pnam_end - pnam;
		names->ptr[names->len] = '\0';
	}
done:
	fclose(f);
	return n;
}

static bool in_names(const struct buf *names, const char *idx)
{
	size_t at = 0;

	while (names->ptr && at < names->len) {
		const char *name = names->ptr + at;

		if (!strcmp(name, idx))
			return true;
		at += strlen(name) + 1;
	}
	return false;
}

static bool pack_exists(const char *dir, const char *idx)
{
	struct buf path = BUF_INIT;
	struct stat st;
	bool ok = buf_printf(&path, "%s/%.*s.pack", dir, (int)(strlen(idx) - 4), idx) == 0 &&
		stat(path.ptr, &st) == 0 && S_ISREG(st.st_mode);

	buf_release(&path);
	return ok;
}

/* The packed objects of one object directory, then of its alternates. */
static unsigned long objects_count(const char *objects, int depth)
{
	struct buf path = BUF_INIT, names = BUF_INIT, alternates = BUF_INIT;
	unsigned long count = 0;
	struct dirent *e;
	DIR *dir;
	char *line, *save = NULL;

	if (buf_printf(&path, "%s/pack/multi-pack-index", objects) == 0)
		count += midx_count(&names, path.ptr);
	buf_clear(&path);
	if (buf_printf(&path, "%s/pack", objects) == 0 && (dir = opendir(path.ptr))) {
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			struct buf idx = BUF_INIT;

			if (len < 5 || strcmp(e->d_name + len - 4, ".idx") || in_names(&names, e->d_name) ||
			    !pack_exists(path.ptr, e->d_name))
				continue;
			if (buf_printf(&idx, "%s/%s", path.ptr, e->d_name) == 0)
				count += idx_count(idx.ptr);
			buf_release(&idx);
		}
		closedir(dir);
	}
	buf_clear(&path);
	if (depth < MAX_ALTERNATES && buf_printf(&path, "%s/info/alternates", objects) == 0 &&
	    buf_read_regular(&alternates, path.ptr, "", 0) == 0 && alternates.ptr) {
		for (line = strtok_r(alternates.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			struct buf alt = BUF_INIT;

			if (*line == '#' || !*line)
				continue;
			if ((*line == '/' ? buf_puts(&alt, line) : buf_printf(&alt, "%s/%s", objects, line)) == 0)
				count += objects_count(alt.ptr, depth + 1);
			buf_release(&alt);
		}
	}
	buf_release(&alternates);
	buf_release(&names);
	buf_release(&path);
	return count;
}

static int msb(unsigned long n)
{
	int bit = 0;

	while (n >>= 1)
		bit++;
	return bit;
}

/* core.abbrev: -1 for auto (also when unset or invalid), 40 for "no", else the length. */
static int configured_abbrev(git_repository *git)
{
	git_config *config = NULL;
	const char *value = NULL;
	int len = -1;

	if (git_repository_config_snapshot(&config, git) < 0)
		return -1;
	if (git_config_get_string(&value, config, "core.abbrev") == 0 && value) {
		char *end;
		long n = strtol(value, &end, 10);

		if (!*value || !strcasecmp(value, "false") || !strcasecmp(value, "no") ||
		    !strcasecmp(value, "off"))
			len = HEXSZ;
		else if (end != value && !*end && n >= MIN_ABBREV && n <= HEXSZ)
			len = (int)n;
	}
	git_config_free(config);
	return len;
}

int repo_abbrev_len(struct git_repository *git)
{
	struct buf objects = BUF_INIT;
	int len = configured_abbrev(git);

	if (len >= 0)
		return len;
	if (buf_printf(&objects, "%sobjects", git_repository_commondir(git)) < 0)
		return FALLBACK_ABBREV;
	len = (msb(objects_count(objects.ptr, 0)) + 1 + 1) / 2;
	buf_release(&objects);
	return len < FALLBACK_ABBREV ? FALLBACK_ABBREV : len;
}

/*
 * The shortest prefix, at least min_len long, that no other object shares:
 * a prefix that names nothing, or names only this object, is unique.
 */
int repo_abbrev(char *out, struct git_repository *git, const char *hex, int min_len)
{
	git_odb *odb = NULL;
	int len = min_len < MIN_ABBREV ? MIN_ABBREV : min_len;

	if (strlen(hex) != HEXSZ)
		return -1;
	/* No object has the null id (an absent side): asking would rescan the packs for nothing. */
	if (strspn(hex, "0") == HEXSZ) {
		memset(out, '0', (size_t)len);
		out[len] = '\0';
		return len;
	}
	if (git_repository_odb(&odb, git) < 0)
		len = HEXSZ;
	for (; len < HEXSZ; len++) {
		git_oid prefix, found;
		int rc;

		if (git_oid_fromstrn(&prefix, hex, (size_t)len) < 0)
			break;
		rc = git_odb_exists_prefix(&found, odb, &prefix, (size_t)len);
		if (rc != GIT_EAMBIGUOUS && !(rc == 0 && git_oid_streq(&found, hex)))
			break;
	}
	git_odb_free(odb);
	git_error_clear();
	memcpy(out, hex, (size_t)len);
	out[len] = '\0';
	return len;
}

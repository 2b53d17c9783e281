/* Trusted .revline files: a content hash per real path, in the user's directory. */
#include "trust.h"
#include "datadir.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record: "<content hash> <path>\n"; a real path fits in PATH_MAX (4096). */
#define RECORD_MAX 8192
#define HASH_HEX (TRUST_HASH_SIZE - 1)

int trust_hash(char out[TRUST_HASH_SIZE], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n * 2 != HASH_HEX)
		return error_set(RL_ERROR, "libcrypto could not compute a SHA-256");
	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int trust_record_path(struct buf *out, const char *path)
{
	char name[TRUST_HASH_SIZE];
	int error;

	if ((error = datadir_state(out, "trust")) < 0 || (error = trust_hash(name, path, strlen(path))) < 0)
		return error;
	return buf_printf(out, "/%s", name);
}

int trust_check(enum trust_state *out, const char *path, const char *hash)
{
	struct buf record = BUF_INIT, text = BUF_INIT;
	size_t n = strlen(path);
	int error;

	*out = TRUST_NONE;
	if ((error = trust_record_path(&record, path)) < 0)
		goto done;
	if (buf_read_file(&text, record.ptr) < 0) {
		/* No record (or none that can be read): nothing is trusted. */
		error_clear();
		goto done;
	}
	if (text.len != HASH_HEX + 1 + n + 1 || text.ptr[HASH_HEX] != ' ' ||
	    memcmp(text.ptr + HASH_HEX + 1, path, n) || text.ptr[text.len - 1] != '\n')
		goto done;
	*out = memcmp(text.ptr, hash, HASH_HEX) ? TRUST_CHANGED : TRUST_TRUSTED;
done:
	buf_release(&text);
	buf_release(&record);
	return error;
}

/* mkdir -p of the record's directory; private (0700) like the rest of the user's revline files. */
static int make_dirs(char *dir)
{
	char *p;

	for (p = dir + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return error_set(RL_EIO, "cannot create %s: %s", dir, strerror(errno));
		*p = c;
		if (!c)
			return 0;
	}
}

int trust_record(const char *path, const char *hash)
{
	struct buf record = BUF_INIT, text = BUF_INIT;
	char *slash;
	int error;

	if (strlen(hash) != HASH_HEX)
		return error_set(RL_EUSAGE, "'%s' is not a SHA-256 in hex", hash);
	/* The record is one line. */
	if (strchr(path, '\n'))
		return error_set(RL_EUSAGE, "cannot trust %s: its path holds a line break", path);
	if ((error = trust_record_path(&record, path)) < 0 ||
	    (error = buf_printf(&text, "%s %s\n", hash, path)) < 0)
		goto done;
	slash = strrchr(record.ptr, '/');
	*slash = '\0';
	error = make_dirs(record.ptr);
	*slash = '/';
	if (error == 0)
		error = buf_write_file(record.ptr, text.ptr, text.len, 0600);
done:
	buf_release(&text);
	buf_release(&record);
	return error;
}

int trust_revoke(bool *had, const char *path)
{
	struct buf record = BUF_INIT;
	int error;

	*had = false;
	if ((error = trust_record_path(&record, path)) < 0)
		return error;
	if (unlink(record.ptr) == 0)
		*had = true;
	else if (errno != ENOENT)
		error = error_set(RL_EIO, "cannot remove %s: %s", record.ptr, strerror(errno));
	buf_release(&record);
	return error;
}

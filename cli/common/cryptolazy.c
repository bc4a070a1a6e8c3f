/* cryptolazy.c - OpenSSL's libcrypto for the two programs, opened on first
 * use. Linked as a needed library it cost every run its load: 4,191 symbol
 * relocations, ~2.5 M instructions and ~130 page faults before main(),
 * though only --sign, signed input and --hash use it. The functions the
 * programs call (src/scan/envelope.c, cli/dump/dumphash.c) are defined here with
 * OpenSSL's prototypes and forward to the library's; they are hidden
 * (-fvisibility=hidden), so an extension module that links libcrypto
 * itself still binds to the real ones. The ccloudpickle extension and the
 * tests link libcrypto itself (Makefile). A libcrypto call added to
 * src/ or cli/ fails the programs' link until it is added here. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>

#include "common/message.h" /* cpk_error */

/* The soname the headers belong to: libcrypto.so.3 (OpenSSL 3), or
 * libcrypto.so.1.1. */
#define CPK_STR_(x) #x
#define CPK_STR(x) CPK_STR_(x)
#ifdef OPENSSL_SHLIB_VERSION
#define CPK_LIBCRYPTO "libcrypto.so." CPK_STR(OPENSSL_SHLIB_VERSION)
#else
#define CPK_LIBCRYPTO "libcrypto.so." SHLIB_VERSION_NUMBER
#endif

static struct {
    unsigned char *(*hmac)(const EVP_MD *, const void *, int,
                           const unsigned char *, size_t, unsigned char *,
                           unsigned int *);
    int (*digest)(const void *, size_t, unsigned char *, unsigned int *,
                  const EVP_MD *, ENGINE *);
    const EVP_MD *(*sha256)(void);
    int (*memcmp)(const void *, const void *, size_t);
    void (*cleanse)(void *, size_t);
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* All five or none: a partial libcrypto is no libcrypto. */
static void
open_lib(void)
{
    void *h = dlopen(CPK_LIBCRYPTO, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        /* Said once, before the caller's own "libcrypto failed". */
        const char *why = dlerror();
        cpk_error("cannot load %s, which signing, verifying and --hash "
                  "need: %s", CPK_LIBCRYPTO, why ? why : "unknown error");
        return;
    }
    *(void **)&lib.hmac = dlsym(h, "HMAC");
    *(void **)&lib.digest = dlsym(h, "EVP_Digest");
    *(void **)&lib.sha256 = dlsym(h, "EVP_sha256");
    *(void **)&lib.memcmp = dlsym(h, "CRYPTO_memcmp");
    *(void **)&lib.cleanse = dlsym(h, "OPENSSL_cleanse");
    if (!lib.hmac || !lib.digest || !lib.sha256 || !lib.memcmp ||
        !lib.cleanse) {
        cpk_error("cannot use %s: it lacks HMAC, EVP_Digest, EVP_sha256, "
                  "CRYPTO_memcmp or OPENSSL_cleanse", CPK_LIBCRYPTO);
        memset(&lib, 0, sizeof(lib));
        dlclose(h);
    }
}

static int
have_lib(void)
{
    pthread_once(&lib_once, open_lib);
    return lib.hmac != NULL;
}

/* Without libcrypto each function fails as OpenSSL's own do (NULL, 0),
 * so callers report "libcrypto failed"; a comparison says "differ". */

unsigned char *
HMAC(const EVP_MD *evp_md, const void *key, int key_len,
     const unsigned char *data, size_t data_len, unsigned char *md,
     unsigned int *md_len)
{
    if (!have_lib())
        return NULL;
    return lib.hmac(evp_md, key, key_len, data, data_len, md, md_len);
}

int
EVP_Digest(const void *data, size_t count, unsigned char *md,
           unsigned int *size, const EVP_MD *type, ENGINE *impl)
{
    if (!have_lib())
        return 0;
    return lib.digest(data, count, md, size, type, impl);
}

const EVP_MD *
EVP_sha256(void)
{
    if (!have_lib())
        return NULL;
    return lib.sha256();
}

int
CRYPTO_memcmp(const void *in_a, const void *in_b, size_t len)
{
    if (!have_lib())
        return 1;
    return lib.memcmp(in_a, in_b, len);
}

void
OPENSSL_cleanse(void *ptr, size_t len)
{
    if (have_lib())
        lib.cleanse(ptr, len);
    else
        explicit_bzero(ptr, len);
}

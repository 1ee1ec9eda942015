/* Compiler helpers shared by the runtime and the generated wrappers. */
#ifndef MW_COMPILER_H
#define MW_COMPILER_H

#if defined(__GNUC__)
#define MW_HIDDEN __attribute__((visibility("hidden")))
#define MW_EXPORT __attribute__((visibility("default")))
/* initial-exec TLS: a plain %fs-relative load instead of a __tls_get_addr
 * call; fine for a library that is linked or preloaded at start-up. */
#define MW_TLS_MODEL __attribute__((tls_model("initial-exec")))
#define MW_LIKELY(x) __builtin_expect(!!(x), 1)
#define MW_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define MW_NOINLINE __attribute__((noinline))
#define MW_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MW_NOINLINE
#define MW_ALWAYS_INLINE inline
#define MW_HIDDEN
#define MW_EXPORT
#define MW_TLS_MODEL
#define MW_LIKELY(x) (x)
#define MW_UNLIKELY(x) (x)
#define MW_PRINTF(f, a)
#endif

#endif

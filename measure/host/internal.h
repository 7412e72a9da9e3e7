/* internal.h — private to the host harness: the compiled form of a batch
 * of kernels (compile.c), used by run.c. */
#ifndef NPU_TUNE_HOST_INTERNAL_H
#define NPU_TUNE_HOST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"

/* The timing runner's C source, measure/host/runner.c, embedded at build time. */
extern const char hs_runner_source[];

/* A batch of jobs compiled into shared objects, and the timing runner. */
typedef struct hs_build hs_build;

/* Compiles jobs[0..n) (several per compiler invocation, invocations in
 * parallel; the jobs of a failed invocation again one by one) and the runner
 * into workdir. NULL with a reason in err when out of memory. */
hs_build *hs_build_jobs(const hs_job *jobs, size_t n, const char *workdir, char *err,
                        size_t errlen);

/* The runner executable, or NULL with why it did not build in why. */
const char *hs_build_runner(const hs_build *b, char *why, size_t len);

/* Job i's shared object, or NULL with the compiler's reason in why. */
const char *hs_build_object(const hs_build *b, size_t i, char *why, size_t len);

/* Removes the outputs, keeps only the sources of jobs that failed alone. */
void hs_build_free(hs_build *b);

#endif

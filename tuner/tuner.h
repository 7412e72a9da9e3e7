/* tuner.h — the npu-tune commands: tuning a script's problems and explaining
 * the model. Each returns the process exit code (0 ok, 1 error, 2 usage). */
#ifndef NPU_TUNE_TUNER_H
#define NPU_TUNE_TUNER_H

enum { TN_OK = 0, TN_ERROR = 1, TN_USAGE = 2 };

/* npu-tune [--quiet] SCRIPT.lua: enumerate, rank, measure, journal, table. */
int tn_run(int argc, char **argv);

/* npu-tune model --target T --shape MxNxK [...]: explain one config, or the
 * best tile per strategy by load volume. */
int tn_model(int argc, char **argv);

/* Prints "npu-tune: <message>" on stderr (one line). */
void tn_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses "AxBxC" (n numbers, each 1..2^20) into v; false if malformed. */
int tn_parse_dims(const char *s, long long *v, int n);

#endif

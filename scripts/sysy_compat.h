// Lets a SysY program compile as C++ with g++ (the reference the bench and the differential
// tests compare against): C linkage for the runtime library, array functions that accept
// arrays of any rank (SysY passes the first element's address), and the timer macros.
#ifndef SYSY_COMPAT_H
#define SYSY_COMPAT_H

extern "C" {
#include "../runtime/sylib.h"
void *memset(void *s, int c, unsigned int n);
}

template <typename T> static inline int *sysy_int_ptr(T *a) { return (int *)a; }
template <typename T> static inline float *sysy_float_ptr(T *a) { return (float *)a; }

#define getarray(a) (getarray)(sysy_int_ptr(a))
#define getfarray(a) (getfarray)(sysy_float_ptr(a))
#define putarray(n, a) (putarray)((n), sysy_int_ptr(a))
#define putfarray(n, a) (putfarray)((n), sysy_float_ptr(a))
#define starttime() _sysy_starttime(__LINE__)
#define stoptime() _sysy_stoptime(__LINE__)

#endif

// Per-core SIMD ceilings of this CPU's native int8 and float32 multiply-add instructions, the
// counterpart of kernels.wat (what LiteRT's XNNPACK kernels can reach natively). Built and run
// by experiments/simd_ceiling.py:  kernels <kernel> <iterations> <calls>  prints
// "<seconds for all calls> <checksum of one call>" (the mean over the calls, which all compute
// the same value). Each kernel keeps 8 independent accumulators in registers (no memory
// traffic; accumulator k starts at k in every lane, so no two chains are the same) and returns
// their sum, which the driver checks against its closed form.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// The same constant vectors as kernels.wat, repeated across the register.
static const signed char A8[16] = {-3, 1, 4, -1, 5, -9, 2, -6, 5, 3, -5, 8, -9, 7, -9, 3};
static const unsigned char B8[16] = {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0, 4, 5};
// Whole numbers, so float32 sums stay exact below 2^24 and the checksum has a closed form.
static const float AF[4] = {1.0f, -1.0f, 2.0f, 1.0f};
static const float BF[4] = {1.0f, 1.0f, 1.0f, 3.0f};

#define REPEAT8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

// vpdpbusd: unsigned bytes x signed bytes, 4 products summed into each int32 lane.
__attribute__((target("avx512f,avx512vnni"))) static long long vnni512(long n) {
  __m512i a = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)A8));
  __m512i b = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)B8));
#define DECL(k) __m512i c##k = _mm512_set1_epi32(k);  // distinct: no merging of the chains
  REPEAT8(DECL)
  for (long i = 0; i < n; i++) {
#define STEP(k) c##k = _mm512_dpbusd_epi32(c##k, b, a);
    REPEAT8(STEP)
  }
  __m512i s = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(c0, c1), _mm512_add_epi32(c2, c3)),
                               _mm512_add_epi32(_mm512_add_epi32(c4, c5), _mm512_add_epi32(c6, c7)));
  return _mm512_reduce_add_epi32(s);  // 4 copies of the 128-bit lane sum
}

// The same instruction on 128-bit registers (EVEX.128): what the width alone costs.
__attribute__((target("avx512f,avx512vl,avx512vnni"))) static long long vnni128(long n) {
  __m128i a = _mm_loadu_si128((const __m128i *)A8), b = _mm_loadu_si128((const __m128i *)B8);
#define DECLX(k) __m128i c##k = _mm_set1_epi32(k);
  REPEAT8(DECLX)
  for (long i = 0; i < n; i++) {
#define STEPX(k) c##k = _mm_dpbusd_epi32(c##k, b, a);
    REPEAT8(STEPX)
  }
  __m128i s = _mm_add_epi32(_mm_add_epi32(_mm_add_epi32(c0, c1), _mm_add_epi32(c2, c3)),
                            _mm_add_epi32(_mm_add_epi32(c4, c5), _mm_add_epi32(c6, c7)));
  unsigned lanes[4];  // summed in 32 bits, wrapping, as the other int8 kernels' sums do
  _mm_storeu_si128((__m128i *)lanes, s);
  return (int)(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
}

__attribute__((target("avx512f"))) static double fma512(long n) {
  __m512 a = _mm512_broadcast_f32x4(_mm_loadu_ps(AF)), b = _mm512_broadcast_f32x4(_mm_loadu_ps(BF));
#define DECLF(k) __m512 c##k = _mm512_set1_ps((float)k);
  REPEAT8(DECLF)
  for (long i = 0; i < n; i++) {
#define STEPF(k) c##k = _mm512_fmadd_ps(b, a, c##k);
    REPEAT8(STEPF)
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                           _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
  return _mm512_reduce_add_ps(s);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s vnni512|vnni128|fma512 <iterations> <calls>\n", argv[0]);
    return 2;
  }
  long n = atol(argv[2]), calls = atol(argv[3]);
  int ok = (!strcmp(argv[1], "vnni512") && __builtin_cpu_supports("avx512vnni")) ||
           (!strcmp(argv[1], "vnni128") && __builtin_cpu_supports("avx512vnni") &&
            __builtin_cpu_supports("avx512vl")) ||
           (!strcmp(argv[1], "fma512") && __builtin_cpu_supports("avx512f"));
  if (!ok || n < 1 || calls < 1) {
    fprintf(stderr, "%s: unknown kernel, or this CPU lacks its instructions\n", argv[1]);
    return 3;
  }
  // A volatile count: the compiler may not fold the calls of these pure functions into one.
  volatile long count = n;
  double t0 = now(), checksum = 0;
  for (long r = 0; r < calls; r++) {
    // Summed, so that no call's work is dead.
    if (argv[1][0] == 'f') checksum += fma512(count);
    else checksum += (double)(argv[1][4] == '5' ? vnni512(count) : vnni128(count));
  }
  checksum /= calls;
  printf("%.9f %.17g\n", now() - t0, checksum);
  return 0;
}

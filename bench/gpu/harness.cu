// TileTag GPU benchmark harness: loads the cubins that bench/gpu/prepare.sh
// compiled with tiletag-opt (the GPU machine has no MLIR), launches them with
// the CUDA driver API exactly as tiletag-run --device=cuda does, checks them,
// and times them against cuBLAS (cuBLASLt for fp8) in the same process (A/B
// interleaved, medians of CUDA-event timings, inputs rotated past the L2).
//
// Usage: harness DIR OUT.json [quick]
//   DIR holds manifest.txt and the cubins.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#define CU(call)                                                               \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *m_ = nullptr;                                                \
      cuGetErrorString(r_, &m_);                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   m_ ? m_ : "?");                                             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define BLAS(call)                                                             \
  do {                                                                         \
    cublasStatus_t s_ = (call);                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__,          \
                   __LINE__, #call, (int)s_);                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define RT(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// Kernels from the manifest
//===----------------------------------------------------------------------===//

struct TensorMapSpec {
  int operand;
  std::vector<int64_t> box; // memref order
};

struct Kernel {
  std::string name;
  CUfunction fn = nullptr;
  int block = 128;
  int64_t shared = 0, workspace = 0;
  std::vector<TensorMapSpec> maps;
};

static std::map<std::string, Kernel> loadManifest(const std::string &dir) {
  std::map<std::string, Kernel> kernels;
  std::ifstream in(dir + "/manifest.txt");
  if (!in) {
    std::fprintf(stderr, "no %s/manifest.txt (run bench/gpu/prepare.sh)\n",
                 dir.c_str());
    std::exit(1);
  }
  std::map<std::string, CUmodule> modules;
  std::string line;
  // kernel NAME cubin FILE block N shared N workspace N maps OP:B0xB1[xB2],...
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string word, file, maps;
    Kernel k;
    ls >> word >> k.name >> word >> file >> word >> k.block >> word >>
        k.shared >> word >> k.workspace >> word >> maps;
    if (!modules.count(file)) {
      CUmodule m;
      CU(cuModuleLoad(&m, (dir + "/" + file).c_str()));
      modules[file] = m;
    }
    CU(cuModuleGetFunction(&k.fn, modules[file], k.name.c_str()));
    if (k.shared)
      CU(cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            (int)k.shared));
    std::istringstream ms(maps == "-" ? "" : maps);
    std::string spec;
    while (std::getline(ms, spec, ',')) {
      TensorMapSpec t;
      t.operand = std::stoi(spec.substr(0, spec.find(':')));
      std::istringstream bs(spec.substr(spec.find(':') + 1));
      std::string d;
      while (std::getline(bs, d, 'x'))
        t.box.push_back(std::stoll(d));
      k.maps.push_back(t);
    }
    kernels[k.name] = k;
  }
  return kernels;
}

/// A device tensor: row-major, contiguous.
struct Tensor {
  CUdeviceptr ptr = 0;
  std::vector<int64_t> shape;
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  int width = 2;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

static Tensor alloc(std::vector<int64_t> shape, CUtensorMapDataType dtype,
                    int width) {
  Tensor t;
  t.shape = shape;
  t.dtype = dtype;
  t.width = width;
  CU(cuMemAlloc(&t.ptr, std::max<int64_t>(t.numel() * width, 256)));
  return t;
}

/// An operand of a lowered kernel: a memref or a scalar.
struct Operand {
  const Tensor *tensor = nullptr;
  uint64_t scalar = 0;
};

/// A prepared launch: parameters in the lowered signature (each memref as
/// allocated, aligned, offset, sizes, strides), tensor maps, workspace.
struct Launch {
  const Kernel *kernel;
  unsigned grid[3] = {1, 1, 1};
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  std::vector<CUdeviceptr> owned;

  Launch(const Kernel &k, std::vector<Operand> operands,
         std::vector<unsigned> g)
      : kernel(&k) {
    for (size_t i = 0; i < g.size(); ++i)
      grid[i] = g[i];
    for (const Operand &o : operands) {
      if (o.tensor)
        memref(o.tensor->ptr, o.tensor->shape);
      else
        storage.push_back(o.scalar);
    }
    for (const TensorMapSpec &m : k.maps) {
      const Tensor &t = *operands[m.operand].tensor;
      int rank = (int)t.shape.size();
      cuuint64_t dims[5], strides[4];
      cuuint32_t box[5], es[5];
      int64_t stride = t.width;
      for (int d = 0; d < rank; ++d) {
        dims[d] = t.shape[rank - 1 - d];
        box[d] = (cuuint32_t)m.box[rank - 1 - d];
        es[d] = 1;
        if (d > 0)
          strides[d - 1] = stride;
        stride *= t.shape[rank - 1 - d];
      }
      CUtensorMap map;
      CU(cuTensorMapEncodeTiled(&map, t.dtype, rank, (void *)t.ptr, dims,
                                strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
      CUdeviceptr p;
      CU(cuMemAlloc(&p, sizeof(map)));
      CU(cuMemcpyHtoD(p, &map, sizeof(map)));
      owned.push_back(p);
      storage.push_back(p);
    }
    int64_t programs = (int64_t)grid[0] * grid[1] * grid[2];
    CUdeviceptr ws = 0;
    if (k.workspace) {
      CU(cuMemAlloc(&ws, k.workspace * programs));
      owned.push_back(ws);
    }
    memref(ws, {k.workspace * programs});
    for (uint64_t &s : storage)
      params.push_back(&s);
  }
  ~Launch() {
    for (CUdeviceptr p : owned)
      cuMemFree(p);
  }
  void memref(CUdeviceptr p, const std::vector<int64_t> &shape) {
    storage.push_back(p);
    storage.push_back(p);
    storage.push_back(0);
    for (int64_t s : shape)
      storage.push_back(s);
    std::vector<int64_t> strides(shape.size());
    int64_t stride = 1;
    for (int d = (int)shape.size() - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape[d];
    }
    for (int64_t s : strides)
      storage.push_back(s);
  }
  void run(CUstream stream = nullptr) {
    CU(cuLaunchKernel(kernel->fn, grid[0], grid[1], grid[2], kernel->block, 1,
                      1, (unsigned)kernel->shared, stream, params.data(),
                      nullptr));
  }
};

//===----------------------------------------------------------------------===//
// Inputs, references, timing
//===----------------------------------------------------------------------===//

/// Uniform values in [-1, 1), rounded to T (bf16, or e4m3: the OCP encoding,
/// which wgmma's e4m3 and cuBLASLt's CUDA_R_8F_E4M3 both are).
template <typename T> __global__ void fillUniform(T *x, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = T((h & 0xffffff) / float(0x800000) - 1.0f);
  }
}

__global__ void fillF32(float *x, int64_t n, float v) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = v;
}

/// Naive attention reference in f32: one thread per (bh, query) row.
__global__ void attentionRef(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                             const __nv_bfloat16 *v, float *o, int bh, int s,
                             int d, int causal, float scale) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= bh * s)
    return;
  int b = row / s, i = row % s;
  const __nv_bfloat16 *qi = q + (int64_t)row * d;
  float m = -INFINITY, l = 0, acc[128];
  for (int c = 0; c < d; ++c)
    acc[c] = 0;
  int end = causal ? i + 1 : s;
  for (int j = 0; j < end; ++j) {
    const __nv_bfloat16 *kj = k + ((int64_t)b * s + j) * d;
    float dot = 0;
    for (int c = 0; c < d; ++c)
      dot += __bfloat162float(qi[c]) * __bfloat162float(kj[c]);
    dot *= scale;
    float mn = fmaxf(m, dot), alpha = __expf(m - mn), p = __expf(dot - mn);
    l = l * alpha + p;
    const __nv_bfloat16 *vj = v + ((int64_t)b * s + j) * d;
    for (int c = 0; c < d; ++c)
      acc[c] = acc[c] * alpha + p * __bfloat162float(vj[c]);
    m = mn;
  }
  for (int c = 0; c < d; ++c)
    o[(int64_t)row * d + c] = acc[c] / l;
}

__global__ void bf16ToF32(const __nv_bfloat16 *x, float *y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __bfloat162float(x[i]);
}

static void randomBF16(const Tensor &t, uint32_t seed) {
  fillUniform<__nv_bfloat16><<<1024, 256>>>((__nv_bfloat16 *)t.ptr, t.numel(), seed);
  RT(cudaGetLastError());
}

static void fill(const Tensor &t, float v) {
  fillF32<<<1024, 256>>>((float *)t.ptr, t.numel(), v);
  RT(cudaGetLastError());
}

static std::vector<float> download(const Tensor &t) {
  std::vector<float> h(t.numel());
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(h.data(), t.ptr, h.size() * 4));
  return h;
}

static std::vector<uint16_t> downloadBF16(const Tensor &t) {
  std::vector<uint16_t> h(t.numel());
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(h.data(), t.ptr, h.size() * 2));
  return h;
}

static double bf16(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// An f32 or bf16 tensor's values as floats.
static std::vector<float> downloadValues(const Tensor &t) {
  if (t.width == 4)
    return download(t);
  std::vector<float> h;
  for (uint16_t b : downloadBF16(t))
    h.push_back((float)bf16(b));
  return h;
}

/// Fills an f32 or bf16 tensor with NaN, so that unwritten elements fail.
static void poison(const Tensor &t) {
  if (t.width == 4)
    fill(t, NAN);
  else
    CU(cuMemsetD16(t.ptr, 0x7fc0, t.numel()));
}

/// ||got - want|| / ||want||; NaN (or an unwritten NaN poison) fails.
static double relError(const std::vector<float> &got,
                       const std::vector<float> &want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = (double)got[i] - want[i];
    num += d * d;
    den += (double)want[i] * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-30));
}

template <typename F> static float timeOnce(F &&f) {
  CUevent a, b;
  CU(cuEventCreate(&a, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&b, CU_EVENT_DEFAULT));
  CU(cuEventRecord(a, nullptr));
  f();
  CU(cuEventRecord(b, nullptr));
  CU(cuEventSynchronize(b));
  RT(cudaGetLastError());
  float ms;
  CU(cuEventElapsedTime(&ms, a, b));
  CU(cuEventDestroy(a));
  CU(cuEventDestroy(b));
  return ms;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  std::string workload, shape, peer;
  double flops, tiletagMs, peerMs, error;
};

static std::vector<Row> rows;

static void report(const Row &r) {
  rows.push_back(r);
  std::printf("%-10s %-28s tiletag %9.3f ms %7.1f TFLOP/s | %-8s %9.3f ms "
              "%7.1f TFLOP/s | ratio %.3f | rel.err %.2e\n",
              r.workload.c_str(), r.shape.c_str(), r.tiletagMs,
              r.flops / r.tiletagMs / 1e9, r.peer.c_str(), r.peerMs,
              r.peerMs > 0 ? r.flops / r.peerMs / 1e9 : 0.0,
              r.peerMs > 0 ? r.peerMs / r.tiletagMs : 0.0, r.error);
  std::fflush(stdout);
}

static unsigned ceilDiv(int64_t a, int64_t b) { return (unsigned)((a + b - 1) / b); }

/// A float64 spot check of 64 elements of row-major C[M, N], against the
/// inputs themselves: the largest |C - sum_x product(i, j, x)| relative to
/// the sum of the products' magnitudes.
template <typename Product>
static double spotCheck(const std::vector<float> &c, int64_t M, int64_t N,
                        int64_t K, Product product) {
  std::mt19937_64 rng(7);
  double worst = 0;
  for (int t = 0; t < 64; ++t) {
    int64_t i = rng() % M, j = rng() % N;
    double ref = 0, mag = 0;
    for (int64_t x = 0; x < K; ++x) {
      double p = product(i, j, x);
      ref += p;
      mag += std::fabs(p);
    }
    worst = std::max(worst, std::fabs(c[i * N + j] - ref) / std::max(mag, 1e-30));
  }
  return worst;
}

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

/// C[M,N] (f32) = A[M,K] B[K,N] (bf16), against cublasGemmEx with the same
/// types (bf16 in, f32 compute and out); the kernels of kBF16Output write
/// a bf16 C, against cuBLAS with a bf16 output. `sets` input sets are
/// rotated so that repeated runs do not hit in the L2.
static const std::set<std::string> kBF16Output = {
    "gemm_persistent_cooperative"};

static void gemm(std::map<std::string, Kernel> &ks, cublasHandle_t blas,
                 const std::string &kernel, int64_t M, int64_t N, int64_t K,
                 int splits, int reps) {
  int64_t bytes = (M * K + K * N) * 2;
  int sets = std::max<int>(1, std::min<int64_t>(4, (200ll << 20) / bytes + 1));
  std::vector<Tensor> A, B;
  for (int s = 0; s < sets; ++s) {
    A.push_back(alloc({M, K}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2));
    B.push_back(alloc({K, N}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2));
    randomBF16(A.back(), 17 + 2 * s);
    randomBF16(B.back(), 18 + 2 * s);
  }
  const bool bf16Out = kBF16Output.count(kernel);
  const CUtensorMapDataType cType = bf16Out ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  Tensor C = alloc({M, N}, cType, bf16Out ? 2 : 4);
  Tensor Cref = alloc({M, N}, cType, bf16Out ? 2 : 4);
  const Kernel &k = ks.at(kernel);
  // The grids of the kernels' #tile.launch: 128x128 tiles, 128x256 for
  // gemm_wide, 64 rows per consumer warpgroup for the schedule suite's
  // gemm_KIND_dD_cC, a third dimension of splits for split-k.
  int64_t tileM = 128, tileN = kernel == "gemm_wide" ? 256 : 128;
  if (size_t c = kernel.rfind("_c"); kernel.rfind("gemm_", 0) == 0 &&
                                     kernel.find("_d") != std::string::npos &&
                                     c != std::string::npos)
    tileM = 64 * std::stoll(kernel.substr(c + 2));
  std::vector<unsigned> grid = {ceilDiv(M, tileM), ceilDiv(N, tileN)};
  if (splits)
    grid.push_back(splits);
  // A persistent kernel's grid is P: one program per SM.
  if (kernel.rfind("gemm_persistent", 0) == 0) {
    int sms = 0;
    CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    grid = {static_cast<unsigned>(sms)};
  }
  std::vector<Launch *> launches;
  for (int s = 0; s < sets; ++s)
    launches.push_back(new Launch(k, {{&A[s]}, {&B[s]}, {&C}}, grid));
  float one = 1, zero = 0;
  auto tiletag = [&](int s) {
    if (splits) // combine add accumulates into C
      CU(cuMemsetD32Async(C.ptr, 0, M * N, nullptr));
    launches[s]->run();
  };
  auto cublas = [&](int s) {
    // Row-major C = A B is column-major C^T = B^T A^T.
    BLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                      (void *)B[s].ptr, CUDA_R_16BF, N, (void *)A[s].ptr,
                      CUDA_R_16BF, K, &zero, (void *)Cref.ptr,
                      bf16Out ? CUDA_R_16BF : CUDA_R_32F, N,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  // Correctness on set 0, output poisoned with NaN first.
  poison(C);
  tiletag(0);
  cublas(0);
  double err = relError(downloadValues(C), downloadValues(Cref));
  // A float64 spot check of 64 elements, against the inputs themselves.
  std::vector<uint16_t> ha = downloadBF16(A[0]), hb = downloadBF16(B[0]);
  std::vector<float> hc = downloadValues(C);
  double worst = spotCheck(hc, M, N, K, [&](int64_t i, int64_t j, int64_t x) {
    return bf16(ha[i * K + x]) * bf16(hb[x * N + j]);
  });
  // A bf16 output is rounded: half a unit in its last place is 2^-9.
  const double tolerance = bf16Out ? 4e-3 : 1e-3;
  if (!(err < tolerance) || !(worst < tolerance)) {
    std::printf("%s %ldx%ldx%ld: WRONG (rel.err vs cuBLAS %.2e, float64 spot "
                "check %.2e)\n",
                kernel.c_str(), (long)M, (long)N, (long)K, err, worst);
    err = NAN;
  }
  for (int w = 0; w < 3; ++w) {
    tiletag(w % sets);
    cublas(w % sets);
  }
  std::vector<float> tt, cb;
  for (int r = 0; r < reps; ++r) { // A/B/A/B
    tt.push_back(timeOnce([&] { tiletag(r % sets); }));
    cb.push_back(timeOnce([&] { cublas(r % sets); }));
  }
  char shape[64];
  std::snprintf(shape, sizeof shape, "%ldx%ldx%ld%s", (long)M, (long)N,
                (long)K, splits ? (" s" + std::to_string(splits)).c_str() : "");
  report({kernel, shape, "cuBLAS", 2.0 * M * N * K, median(tt), median(cb), err});
  for (Launch *l : launches)
    delete l;
  for (Tensor *t : {&C, &Cref})
    cuMemFree(t->ptr);
  for (int s = 0; s < sets; ++s) {
    cuMemFree(A[s].ptr);
    cuMemFree(B[s].ptr);
  }
}

/// Flash attention forward, O [BH, S, D] bf16, by the kernels `family`_d64
/// and `family`_d128 (attention_fwd: examples/attention.mlir; attention_fa3:
/// examples/attention_fa3.mlir); checked against a naive f32 reference at a
/// smaller size; peers are timed by peers.py.
static void attention(std::map<std::string, Kernel> &ks, const std::string &family,
                      int64_t BH, int64_t S, int64_t D, bool causal, int reps,
                      bool checkOnly) {
  const Kernel &k = ks.at(family + (D == 64 ? "_d64" : "_d128"));
  Tensor Q = alloc({BH, S, D}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2);
  Tensor Kt = alloc({BH, S, D}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2);
  Tensor V = alloc({BH, S, D}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2);
  Tensor O = alloc({BH, S, D}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2);
  randomBF16(Q, 3);
  randomBF16(Kt, 4);
  randomBF16(V, 5);
  Launch l(k, {{&Q}, {&Kt}, {&V}, {&O}, {nullptr, causal ? 1u : 0u}},
           {ceilDiv(S, 128), (unsigned)BH});
  char shape[64];
  std::snprintf(shape, sizeof shape, "BH%ld S%ld D%ld%s", (long)BH, (long)S,
                (long)D, causal ? " causal" : "");
  double err = 0;
  if (checkOnly) {
    Tensor Of = alloc({BH, S, D}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
    Tensor Ref = alloc({BH, S, D}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
    l.run();
    bf16ToF32<<<1024, 256>>>((__nv_bfloat16 *)O.ptr, (float *)Of.ptr, O.numel());
    attentionRef<<<ceilDiv(BH * S, 128), 128>>>(
        (__nv_bfloat16 *)Q.ptr, (__nv_bfloat16 *)Kt.ptr, (__nv_bfloat16 *)V.ptr,
        (float *)Ref.ptr, (int)BH, (int)S, (int)D, causal, 1.0f / std::sqrt((float)D));
    RT(cudaGetLastError());
    err = relError(download(Of), download(Ref));
    std::printf("%s check %s: rel.err %.2e %s\n", family.c_str(), shape, err,
                err < 2e-2 ? "ok" : "WRONG");
    cuMemFree(Of.ptr);
    cuMemFree(Ref.ptr);
  } else {
    l.run();
    std::vector<float> tt;
    for (int r = 0; r < reps; ++r)
      tt.push_back(timeOnce([&] { l.run(); }));
    double flops = 4.0 * BH * S * S * D * (causal ? 0.5 : 1.0);
    report({family, shape, "-", flops, median(tt), 0, NAN});
  }
  for (Tensor *t : {&Q, &Kt, &V, &O})
    cuMemFree(t->ptr);
}

/// cuBLASLt's fp8 GEMM of the same row-major C[M,N] (f32) = A[M,K] B[N,K]^T
/// (e4m3): column-major D[N,M] = B'^T A' with B' = B as K x N (ld K, op T)
/// and A' = A as K x M (ld K, op N), the "TN" form cuBLASLt's fp8 kernels
/// take. Null where cuBLASLt has no kernel for it.
struct LtFp8Gemm {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic = {};
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 32u << 20;
  bool ok = false;

  LtFp8Gemm(cublasLtHandle_t lt, int64_t M, int64_t N, int64_t K) {
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    int found = 0;
    ok = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) ==
             CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                        sizeof ta) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                        sizeof tb) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K) ==
             CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K) ==
             CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, M, N) ==
             CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmulPreferenceSetAttribute(
             pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
             sizeof workspaceBytes) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1,
                                        &heuristic,
                                        &found) == CUBLAS_STATUS_SUCCESS &&
         found > 0 && cuMemAlloc(&workspace, workspaceBytes) == CUDA_SUCCESS;
  }
  ~LtFp8Gemm() {
    if (workspace)
      cuMemFree(workspace);
    if (pref)
      cublasLtMatmulPreferenceDestroy(pref);
    for (cublasLtMatrixLayout_t l : {la, lb, lc})
      if (l)
        cublasLtMatrixLayoutDestroy(l);
    if (op)
      cublasLtMatmulDescDestroy(op);
  }
  bool run(cublasLtHandle_t lt, const Tensor &A, const Tensor &B,
           const Tensor &C) {
    float one = 1, zero = 0;
    return cublasLtMatmul(lt, op, &one, (void *)B.ptr, la, (void *)A.ptr, lb,
                          &zero, (void *)C.ptr, lc, (void *)C.ptr, lc,
                          &heuristic.algo, (void *)workspace, workspaceBytes,
                          nullptr) == CUBLAS_STATUS_SUCCESS;
  }
};

/// fp8 GEMM, C[M,N] (f32) = A[M,K] B[N,K]^T with A and B in e4m3, by
/// `gemm_fp8_nt` (test/Conversion/NVGPU/Inputs/gemm_fp8_nt.mlir): checked
/// by a float64 spot check against the inputs, and against cuBLASLt's fp8
/// GEMM where it has one (timed beside it; where it has none, alone).
static void gemmFp8(std::map<std::string, Kernel> &ks, cublasLtHandle_t lt,
                    int64_t M, int64_t N, int64_t K, int reps) {
  auto found = ks.find("gemm_fp8_nt");
  if (found == ks.end())
    return;
  int64_t bytes = M * K + N * K;
  int sets = std::max<int>(1, std::min<int64_t>(4, (200ll << 20) / bytes + 1));
  std::vector<Tensor> A, B;
  for (int s = 0; s < sets; ++s) {
    A.push_back(alloc({M, K}, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1));
    B.push_back(alloc({N, K}, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1));
    fillUniform<__nv_fp8_e4m3><<<1024, 256>>>((__nv_fp8_e4m3 *)A.back().ptr,
                                   A.back().numel(), 31 + 2 * s);
    fillUniform<__nv_fp8_e4m3><<<1024, 256>>>((__nv_fp8_e4m3 *)B.back().ptr,
                                   B.back().numel(), 32 + 2 * s);
    RT(cudaGetLastError());
  }
  Tensor C = alloc({M, N}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
  Tensor Cref = alloc({M, N}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
  std::vector<Launch *> launches;
  for (int s = 0; s < sets; ++s)
    launches.push_back(new Launch(found->second, {{&A[s]}, {&B[s]}, {&C}},
                                  {ceilDiv(M, 128), ceilDiv(N, 128)}));
  LtFp8Gemm peer(lt, M, N, K);
  poison(C);
  launches[0]->run();
  // A float64 spot check of 64 elements, against the inputs themselves.
  std::vector<uint8_t> ha(M * K), hb(N * K);
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(ha.data(), A[0].ptr, ha.size()));
  CU(cuMemcpyDtoH(hb.data(), B[0].ptr, hb.size()));
  std::vector<float> hc = download(C);
  auto e4m3 = [](uint8_t v) {
    __nv_fp8_e4m3 x;
    x.__x = v;
    return (double)(float)x;
  };
  double worst = spotCheck(hc, M, N, K, [&](int64_t i, int64_t j, int64_t x) {
    return e4m3(ha[i * K + x]) * e4m3(hb[j * K + x]);
  });
  double err = NAN;
  if (peer.ok && peer.run(lt, A[0], B[0], Cref))
    err = relError(hc, download(Cref));
  else
    std::printf("gemm_fp8_nt: cuBLASLt has no fp8 kernel for this shape; "
                "timed alone\n");
  char shape[64];
  std::snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)M, (long)N, (long)K);
  if (!(worst < 1e-3) || (peer.ok && !(err < 1e-3))) {
    std::printf("gemm_fp8_nt %s: WRONG (rel.err vs cuBLASLt %.2e, float64 "
                "spot check %.2e)\n",
                shape, err, worst);
    err = NAN;
  }
  std::vector<float> tt, cb;
  for (int w = 0; w < 3; ++w)
    launches[w % sets]->run();
  for (int r = 0; r < reps; ++r) { // A/B/A/B
    tt.push_back(timeOnce([&] { launches[r % sets]->run(); }));
    if (peer.ok)
      cb.push_back(timeOnce([&] { peer.run(lt, A[r % sets], B[r % sets], Cref); }));
  }
  report({"gemm_fp8_nt", shape, peer.ok ? "cuBLASLt" : "-", 2.0 * M * N * K,
          median(tt), peer.ok ? median(cb) : 0, err});
  for (Launch *l : launches)
    delete l;
  for (int s = 0; s < sets; ++s) {
    cuMemFree(A[s].ptr);
    cuMemFree(B[s].ptr);
  }
  cuMemFree(C.ptr);
  cuMemFree(Cref.ptr);
}

/// MoE grouped GEMM: T routed rows sorted by expert (uniform routing),
/// Y [T, F] f32 = gate * X W[e]. Checked against cuBLAS per expert.
static void moe(std::map<std::string, Kernel> &ks, cublasHandle_t blas,
                int64_t E, int64_t T, int64_t H, int64_t F, int reps) {
  const Kernel &k = ks.at("moe_grouped_gemm");
  Tensor X = alloc({T, H}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2);
  Tensor W = alloc({E, H, F}, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2);
  Tensor off = alloc({E + 1}, CU_TENSOR_MAP_DATA_TYPE_INT32, 4);
  Tensor gate = alloc({T}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
  Tensor Y = alloc({T, F}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
  Tensor Yref = alloc({T, F}, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4);
  randomBF16(X, 11);
  randomBF16(W, 12);
  fill(gate, 1.0f);
  std::vector<int32_t> offsets(E + 1);
  for (int64_t e = 0; e <= E; ++e)
    offsets[e] = (int32_t)(T * e / E);
  CU(cuMemcpyHtoD(off.ptr, offsets.data(), offsets.size() * 4));
  Launch l(k, {{&X}, {&W}, {&off}, {&gate}, {&Y}},
           {(unsigned)E, ceilDiv(T, 64), ceilDiv(F, 128)});
  float one = 1, zero = 0;
  auto perExpert = [&] {
    for (int64_t e = 0; e < E; ++e) {
      int64_t rows = offsets[e + 1] - offsets[e];
      if (!rows)
        continue;
      BLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, F, rows, H, &one,
                        (void *)(W.ptr + e * H * F * 2), CUDA_R_16BF, F,
                        (void *)(X.ptr + offsets[e] * H * 2), CUDA_R_16BF, H,
                        &zero, (void *)(Yref.ptr + offsets[e] * F * 4),
                        CUDA_R_32F, F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
  };
  fill(Y, NAN);
  l.run();
  perExpert();
  double err = relError(download(Y), download(Yref));
  std::vector<float> tt, cb;
  for (int r = 0; r < reps; ++r) {
    tt.push_back(timeOnce([&] { l.run(); }));
    cb.push_back(timeOnce(perExpert));
  }
  char shape[64];
  std::snprintf(shape, sizeof shape, "E%ld T%ld H%ld F%ld", (long)E, (long)T,
                (long)H, (long)F);
  report({"moe", shape, "cuBLAS/e", 2.0 * T * H * F, median(tt), median(cb),
          err < 1e-2 ? err : NAN});
  for (Tensor *t : {&X, &W, &off, &gate, &Y, &Yref})
    cuMemFree(t->ptr);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: harness DIR OUT.json [quick]\n");
    return 2;
  }
  bool quick = argc > 3 && std::string(argv[3]) == "quick";
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  char name[256];
  CU(cuDeviceGetName(name, sizeof name, dev));
  std::printf("device: %s\n", name);
  std::map<std::string, Kernel> ks = loadManifest(argv[1]);
  cublasHandle_t blas;
  BLAS(cublasCreate(&blas));
  cublasLtHandle_t lt;
  BLAS(cublasLtCreate(&lt));
  int reps = quick ? 5 : 15;

  // Correctness at ragged sizes first.
  gemm(ks, blas, "gemm", 1000, 744, 520, 0, 1);
  gemm(ks, blas, "gemm_wide", 1000, 744, 520, 0, 1);
  for (const char *kernel : {"gemm_cooperative_d4_c2", "gemm_pingpong_d4_c2",
                             "gemm_tma_store", "gemm_persistent",
                             "gemm_persistent_cooperative"})
    gemm(ks, blas, kernel, 1000, 744, 520, 0, 1);
  gemm(ks, blas, "gemm_splitk_d4_c2", 1000, 744, 520, 3, 1);
  for (const char *family : {"attention_fwd", "attention_fa3"}) {
    attention(ks, family, 2, 1000, 64, true, 1, true);
    attention(ks, family, 2, 777, 128, false, 1, true);
  }

  // GEMM shapes of TARGETS.md.
  for (auto s : std::vector<std::vector<int64_t>>{{4096, 4096, 4096},
                                                  {8192, 8192, 8192},
                                                  {16384, 4096, 4096},
                                                  {16384, 14336, 4096},
                                                  {16384, 4096, 14336},
                                                  {64, 8192, 8192},
                                                  {128, 8192, 8192}})
    for (const char *kernel : {"gemm", "gemm_wide", "gemm_persistent",
                               "gemm_persistent_cooperative"})
      gemm(ks, blas, kernel, s[0], s[1], s[2], 0, reps);
  // The schedule suite's cooperative and ping-pong pipelines, and the
  // GEMM with a TMA-store epilogue.
  for (int64_t n : {4096, 8192})
    for (const char *kernel :
         {"gemm_cooperative_d4_c2", "gemm_pingpong_d4_c2", "gemm_tma_store"})
      gemm(ks, blas, kernel, n, n, n, 0, reps);
  // Split-k: small M, large K.
  gemm(ks, blas, "gemm_splitk_atomic", 128, 8192, 8192, 4, reps);
  // Attention (peers in peers.py); the element-parallel path is slow, so
  // only the smaller shapes.
  for (const char *family : {"attention_fwd", "attention_fa3"}) {
    attention(ks, family, 8 * 16, 2048, 128, false, quick ? 2 : 5, false);
    attention(ks, family, 8 * 16, 2048, 128, true, quick ? 2 : 5, false);
    attention(ks, family, 32, 4096, 64, false, quick ? 2 : 5, false);
  }
  // fp8 (e4m3) C = A B^T, ragged first (checked), then TARGETS.md's sizes.
  gemmFp8(ks, lt, 1000, 744, 528, 1); // K: 16-byte TMA row strides
  for (int64_t n : {4096, 8192})
    gemmFp8(ks, lt, n, n, n, reps);
  // MoE: E=8 top-2 H=4096 FFN=14336 at 4k tokens.
  moe(ks, blas, 8, 8192, 4096, 14336, quick ? 2 : 5);

  FILE *f = std::fopen(argv[2], "w");
  std::fprintf(f, "{\"device\": \"%s\", \"rows\": [\n", name);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    std::fprintf(f,
                 "  {\"workload\": \"%s\", \"shape\": \"%s\", \"peer\": "
                 "\"%s\", \"flops\": %.6g, \"tiletag_ms\": %.6g, \"peer_ms\": "
                 "%.6g, \"rel_err\": %s}%s\n",
                 r.workload.c_str(), r.shape.c_str(), r.peer.c_str(), r.flops,
                 r.tiletagMs, r.peerMs,
                 std::isnan(r.error) ? "null" : std::to_string(r.error).c_str(),
                 i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "]}\n");
  std::fclose(f);
  return 0;
}

//===- Workloads.cpp - float64 references of the shipped workloads --------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/Workloads.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tiletag::exec;

/// C[M, N] = A[M, K] * B[K, N] in float64.
static std::vector<double> matmul(const Array &a, const Array &b) {
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = a.data[i * k + kk];
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += av * b.data[kk * n + j];
    }
  return c;
}

static llvm::StringMap<std::vector<double>>
gemmReference(const NamedBuffers &in, const NamedScalars &) {
  llvm::StringMap<std::vector<double>> out;
  out["C"] = matmul(*in.lookup("A"), *in.lookup("B"));
  return out;
}

/// C[M, N] = A[M, K] * B[N, K]^T: B given by rows of K (K-major).
static llvm::StringMap<std::vector<double>>
gemmNTReference(const NamedBuffers &in, const NamedScalars &) {
  const Array &a = *in.lookup("A"), &b = *in.lookup("B");
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[0];
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t kk = 0; kk < k; ++kk)
        c[i * n + j] += a.data[i * k + kk] * b.data[j * k + kk];
  llvm::StringMap<std::vector<double>> out;
  out["C"] = std::move(c);
  return out;
}

/// D = max(A * B + bias, 0), bias broadcast over the rows: a GEMM with an
/// epilogue.
static llvm::StringMap<std::vector<double>>
gemmBiasReluReference(const NamedBuffers &in, const NamedScalars &) {
  const Array &bias = *in.lookup("bias");
  std::vector<double> d = matmul(*in.lookup("A"), *in.lookup("B"));
  int64_t n = bias.shape[0];
  for (size_t e = 0; e < d.size(); ++e)
    d[e] = std::max(d[e] + bias.data[e % n], 0.0);
  llvm::StringMap<std::vector<double>> out;
  out["D"] = std::move(d);
  return out;
}

/// O = softmax(Q K^T / sqrt(D), keys after the query masked when causal) V,
/// for every (batch * head).
static llvm::StringMap<std::vector<double>>
attentionReference(const NamedBuffers &in, const NamedScalars &scalars) {
  const Array &q = *in.lookup("Q"), &k = *in.lookup("K"), &v = *in.lookup("V");
  int64_t bh = q.shape[0], s = q.shape[1], d = q.shape[2];
  bool causal = scalars.lookup("causal") != 0;
  double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> o(bh * s * d, 0.0), p(s);
  for (int64_t h = 0; h < bh; ++h)
    for (int64_t i = 0; i < s; ++i) {
      int64_t last = causal ? i : s - 1;
      double mx = -INFINITY;
      for (int64_t j = 0; j <= last; ++j) {
        double dot = 0;
        for (int64_t x = 0; x < d; ++x)
          dot += q.data[(h * s + i) * d + x] * k.data[(h * s + j) * d + x];
        p[j] = dot * scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j <= last; ++j)
        sum += (p[j] = std::exp(p[j] - mx));
      for (int64_t j = 0; j <= last; ++j)
        for (int64_t x = 0; x < d; ++x)
          o[(h * s + i) * d + x] += p[j] / sum * v.data[(h * s + j) * d + x];
    }
  llvm::StringMap<std::vector<double>> out;
  out["O"] = std::move(o);
  return out;
}

/// Y[t] = gate[t] * X[t] * W[e] for the expert e whose rows
/// [offsets[e], offsets[e + 1]) hold t.
static llvm::StringMap<std::vector<double>> moeReference(const NamedBuffers &in,
                                                         const NamedScalars &) {
  const Array &x = *in.lookup("X"), &w = *in.lookup("W"),
              &offsets = *in.lookup("offsets"), &gate = *in.lookup("gate");
  int64_t t = x.shape[0], h = x.shape[1], e = w.shape[0], f = w.shape[2];
  std::vector<double> y(t * f, 0.0);
  for (int64_t ex = 0; ex < e; ++ex)
    for (int64_t r = static_cast<int64_t>(offsets.data[ex]);
         r < static_cast<int64_t>(offsets.data[ex + 1]); ++r)
      for (int64_t c = 0; c < f; ++c) {
        double acc = 0;
        for (int64_t kk = 0; kk < h; ++kk)
          acc += x.data[r * h + kk] * w.data[(ex * h + kk) * f + c];
        y[r * f + c] = gate.data[r] * acc;
      }
  llvm::StringMap<std::vector<double>> out;
  out["Y"] = std::move(y);
  return out;
}

/// Splits the T token rows into E contiguous expert ranges at random cut
/// points (some experts may get no rows), sorted, offsets[E] = T.
static void prepareMoE(NamedBuffers &in, std::mt19937_64 &rng) {
  Array &offsets = *in.lookup("offsets");
  int64_t t = in.lookup("X")->shape[0];
  int64_t e = offsets.size() - 1;
  std::uniform_int_distribution<int64_t> cut(0, t);
  std::vector<int64_t> cuts;
  for (int64_t i = 0; i + 1 < e; ++i)
    cuts.push_back(cut(rng));
  std::sort(cuts.begin(), cuts.end());
  offsets.data[0] = 0;
  for (int64_t i = 0; i + 1 < e; ++i)
    offsets.data[i + 1] = static_cast<double>(cuts[i]);
  offsets.data[e] = static_cast<double>(t);
}

/// Rows of X with their own mean and spread: zero-mean inputs would hide
/// masking errors (padding columns counted in the variance add (0 - mean)^2,
/// which is zero only when the mean is).
static void prepareLayerNorm(NamedBuffers &in, std::mt19937_64 &rng) {
  Array &x = *in.lookup("X");
  int64_t r = x.shape[0], c = x.shape[1];
  std::uniform_real_distribution<double> mean(-4.0, 4.0), spread(0.5, 2.0);
  for (int64_t i = 0; i < r; ++i) {
    double m = mean(rng), s = spread(rng);
    for (int64_t j = 0; j < c; ++j)
      x.data[i * c + j] = roundTo(x.elementType, m + s * x.data[i * c + j]);
  }
}

static llvm::StringMap<std::vector<double>>
softmaxReference(const NamedBuffers &in, const NamedScalars &) {
  const Array &x = *in.lookup("X");
  int64_t r = x.shape[0], c = x.shape[1];
  std::vector<double> y(r * c);
  for (int64_t i = 0; i < r; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < c; ++j)
      mx = std::max(mx, x.data[i * c + j]);
    for (int64_t j = 0; j < c; ++j)
      sum += std::exp(x.data[i * c + j] - mx);
    for (int64_t j = 0; j < c; ++j)
      y[i * c + j] = std::exp(x.data[i * c + j] - mx) / sum;
  }
  llvm::StringMap<std::vector<double>> out;
  out["Y"] = std::move(y);
  return out;
}

static llvm::StringMap<std::vector<double>>
layernormReference(const NamedBuffers &in, const NamedScalars &scalars) {
  const Array &x = *in.lookup("X"), &g = *in.lookup("gamma"),
              &b = *in.lookup("beta");
  int64_t r = x.shape[0], c = x.shape[1];
  double eps = scalars.lookup("eps");
  std::vector<double> y(r * c);
  for (int64_t i = 0; i < r; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < c; ++j)
      mean += x.data[i * c + j];
    mean /= c;
    for (int64_t j = 0; j < c; ++j)
      var += (x.data[i * c + j] - mean) * (x.data[i * c + j] - mean);
    var /= c;
    double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < c; ++j)
      y[i * c + j] = (x.data[i * c + j] - mean) * rstd * g.data[j] + b.data[j];
  }
  llvm::StringMap<std::vector<double>> out;
  out["Y"] = std::move(y);
  return out;
}

static const std::vector<Workload> &workloads() {
  // Tolerances: f32 accumulation of bf16 products over K <= a few thousand
  // stays well inside 1e-3 relative; attention also rounds P and O to bf16
  // (8 significant bits), hence 2e-2 relative, with a small absolute part
  // for outputs near zero (an absolute 2e-2 hid a one-key causal leak). A
  // GEMM with a bf16 output rounds each element once (half a unit in the
  // last place: 2^-9 relative), on top of the accumulation's error.
  static const std::vector<Workload> all = {
      {"gemm", {"C"}, {}, {}, 1e-3, 1e-3, nullptr, gemmReference},
      {"gemm_bf16", {"C"}, {}, {}, 5e-3, 1e-3, nullptr, gemmReference},
      {"gemm_nt", {"C"}, {}, {}, 1e-3, 1e-3, nullptr, gemmNTReference},
      {"gemm_splitk", {"C"}, {"W"}, {}, 1e-3, 1e-3, nullptr, gemmReference},
      {"gemm_bias_relu", {"D"}, {}, {}, 1e-3, 1e-3, nullptr,
       gemmBiasReluReference},
      {"attention",
       {"O"},
       {},
       {{"causal", 0}},
       2e-2,
       2e-3,
       nullptr,
       attentionReference},
      {"moe", {"Y"}, {}, {}, 1e-3, 1e-3, prepareMoE, moeReference},
      {"softmax", {"Y"}, {}, {}, 1e-5, 1e-6, nullptr, softmaxReference},
      {"layernorm",
       {"Y"},
       {},
       {{"eps", 1e-5}},
       1e-4,
       1e-4,
       prepareLayerNorm,
       layernormReference},
  };
  return all;
}

const Workload *mlir::tiletag::exec::lookupWorkload(StringRef name) {
  for (const Workload &w : workloads())
    if (w.name == name)
      return &w;
  return nullptr;
}

std::string mlir::tiletag::exec::workloadNames() {
  std::string names;
  for (const Workload &w : workloads())
    names += (names.empty() ? "" : ", ") + w.name;
  return names;
}

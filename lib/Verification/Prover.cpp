//===- Prover.cpp - discharging verification conditions with Z3 -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Verification/Prover.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <unistd.h>
#include <unordered_map>

using namespace mlir::tiletag::verify;

static llvm::cl::opt<std::string>
    clDumpSmt("tiletag-dump-smt",
              llvm::cl::desc("Write every query of the TileTag checkers as "
                             "SMT-LIB into this directory"),
              llvm::cl::value_desc("dir"), llvm::cl::init(""));

std::string mlir::tiletag::verify::defaultDumpDir() { return clDumpSmt; }

/// The resources Z3's SMT core gets before a query goes to the default
/// solver (see Prover::check).
static constexpr uint64_t kCoreLimit = 30000;
/// How many times a nonlinear abstraction is refined (see Prover::check).
static constexpr unsigned kRefinements = 4;

Prover::Prover(z3::context &ctx, uint64_t resourceLimit, std::string dumpDir,
               std::string dumpPrefix)
    : ctx(ctx), resourceLimit(resourceLimit), dumpDir(std::move(dumpDir)),
      dumpPrefix(std::move(dumpPrefix)) {}


/// The resources a solver spent on its checks ("rlimit count").
static uint64_t resourceCount(z3::solver &solver) {
  z3::stats stats = solver.statistics();
  for (unsigned i = 0; i < stats.size(); ++i)
    if (stats.key(i) == "rlimit count")
      return stats.is_uint(i) ? stats.uint_value(i)
                              : static_cast<uint64_t>(stats.double_value(i));
  return 0;
}

/// Makes the model of a satisfiable `solver` minimal in `terms`, one after
/// the other: each term as small as it can be with the ones before it fixed
/// (non-negative terms from 0 upwards: exponential, then binary search).
/// The search spends at most `budget` resources in all; a term whose search
/// runs out keeps its value.
static z3::model minimize(z3::solver &solver,
                          const std::vector<z3::expr> &terms,
                          uint64_t budget) {
  z3::model best = solver.get_model();
  z3::context &ctx = solver.ctx();
  uint64_t start = resourceCount(solver);
  auto left = [&]() -> uint64_t {
    uint64_t spent = resourceCount(solver) - start;
    return spent >= budget ? 0 : budget - spent;
  };
  // A check with what is left of the budget; unknown counts as "no".
  auto check = [&]() {
    if (left() == 0)
      return false;
    z3::params params(ctx);
    params.set("rlimit", static_cast<unsigned>(left()));
    solver.set(params);
    return solver.check() == z3::sat;
  };
  auto satisfiable = [&](const z3::expr &bound) {
    solver.push();
    solver.add(bound);
    bool sat = check();
    solver.pop();
    return sat;
  };
  // First one step into a small world (every term at most 1024): cheap
  // when it holds, and the searches below then start from small values.
  if (!terms.empty()) {
    z3::expr small = ctx.bool_val(true);
    for (const z3::expr &t : terms)
      small = small && t <= 1024;
    solver.push();
    solver.add(small);
    if (check())
      best = solver.get_model();
    else
      solver.pop();
  }
  for (const z3::expr &t : terms) {
    int64_t current;
    if (!best.eval(t, true).is_numeral_i64(current))
      continue;
    if (current > 0 && satisfiable(t <= 0)) {
      current = satisfiable(t == 0) ? 0 : current;
    } else if (current > 0) {
      // Smallest positive value: find a power-of-two bracket, then bisect.
      int64_t lo = 0, hi = 1;
      while (hi < current && !satisfiable(t <= ctx.int_val(hi))) {
        lo = hi;
        hi = hi > current / 2 ? current : hi * 2;
      }
      hi = std::min(hi, current);
      while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (satisfiable(t <= ctx.int_val(mid)))
          hi = mid;
        else
          lo = mid;
      }
      current = hi;
    }
    solver.add(t == ctx.int_val(current));
    if (!check())
      return best; // out of resources: the last model is as small as it gets
    best = solver.get_model();
  }
  return best;
}

namespace {
/// See abstractNonlinear().
class NonlinearAbstraction {
public:
  explicit NonlinearAbstraction(z3::context &ctx) : ctx(ctx), facts(ctx) {}

  z3::expr rewrite(const z3::expr &e) {
    auto it = memo.find(e.id());
    if (it != memo.end())
      return it->second;
    z3::expr result = e;
    if (e.is_quantifier()) {
      quantified = true;
      z3::expr body = rewrite(e.body());
      Z3_ast arg = body;
      result = z3::expr(ctx, Z3_update_term(ctx, e, 1, &arg));
    } else if (e.is_app() && e.num_args() > 0) {
      std::vector<z3::expr> args;
      std::vector<Z3_ast> raw;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        args.push_back(rewrite(e.arg(i)));
        raw.push_back(args.back());
      }
      result = z3::expr(ctx, Z3_update_term(ctx, e, raw.size(), raw.data()));
      if (!hasBoundVariable(result)) {
        unsigned before = count;
        result = abstractIfNonlinear(result);
        if (count != before)
          forEachConstant(
              e,
              [&](const z3::expr &c) {
                if (!c.is_numeral() &&
                    c.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
                    inputIds.insert(c.id()).second)
                  inputs.push_back(c);
              },
              /*intoQuantifiers=*/false);
      }
    }
    memo.emplace(e.id(), result);
    return result;
  }

  bool changed() const { return count > 0; }
  bool hasQuantifier() const { return quantified; }
  z3::expr factsOf() { return z3::mk_and(facts); }
  std::string legend;
  std::vector<AbstractedFormula::Term> terms;
  /// The constants the abstracted subterms are built from: fixed to
  /// numbers, those subterms are linear again.
  const std::vector<z3::expr> &inputConstants() const { return inputs; }

private:
  bool hasBoundVariable(const z3::expr &e) {
    auto it = bound.find(e.id());
    if (it != bound.end())
      return it->second;
    bool result = e.is_var();
    if (e.is_quantifier())
      result = true; // conservatively: its body may refer outside
    else if (e.is_app())
      for (unsigned i = 0; i < e.num_args() && !result; ++i)
        result = hasBoundVariable(e.arg(i));
    bound.emplace(e.id(), result);
    return result;
  }

  z3::expr freshConstant(const z3::expr &standsFor) {
    std::string name = "nonlinear#" + std::to_string(count++);
    legend += "; " + name + " = " + standsFor.to_string() + "\n";
    return ctx.int_const(name.c_str());
  }

  z3::expr abstractIfNonlinear(const z3::expr &e) {
    Z3_decl_kind kind = e.decl().decl_kind();
    // A value loaded from memory (an uninterpreted function of its index):
    // quantifier instantiation over such terms is what Z3 gives up on.
    if (kind == Z3_OP_UNINTERPRETED) {
      std::string name = "loaded#" + std::to_string(count++);
      legend += "; " + name + " = " + e.to_string() + "\n";
      return ctx.constant(name.c_str(), e.get_sort());
    }
    if (kind == Z3_OP_MUL) {
      // Numerals scale linearly; two or more other factors do not.
      z3::expr product = ctx.int_val(1);
      std::vector<z3::expr> factors;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        if (e.arg(i).is_numeral())
          product = product * e.arg(i);
        else
          factors.push_back(e.arg(i));
      }
      if (factors.size() < 2 || !e.is_int())
        return e;
      z3::expr acc = factors[0];
      for (size_t i = 1; i < factors.size(); ++i)
        acc = scaledProduct(acc, factors[i]);
      return product * acc;
    }
    if ((kind == Z3_OP_IDIV || kind == Z3_OP_MOD) &&
        !e.arg(1).is_numeral())
      return kind == Z3_OP_IDIV ? divide(e.arg(0), e.arg(1))
                                : modulo(e.arg(0), e.arg(1));
    return e;
  }

  /// x * y with numeral coefficients taken out (`(-1 * P) * q` is
  /// `-1 * (P * q)`), so that products of one term meet whatever its sign.
  z3::expr scaledProduct(const z3::expr &x, const z3::expr &y) {
    auto split = [&](const z3::expr &e) -> std::pair<z3::expr, z3::expr> {
      if (e.is_app() && e.decl().decl_kind() == Z3_OP_MUL &&
          e.num_args() == 2 && e.arg(0).is_numeral())
        return {e.arg(0), e.arg(1)};
      return {ctx.int_val(1), e};
    };
    auto [cx, tx] = split(x);
    auto [cy, ty] = split(y);
    z3::expr c = (cx * cy).simplify();
    if (tx.is_numeral() || ty.is_numeral())
      return (x * y).simplify();
    z3::expr p = multiply(tx, ty);
    int64_t coefficient = 0;
    return c.is_numeral_i64(coefficient) && coefficient == 1 ? p : c * p;
  }

  z3::expr multiply(const z3::expr &x, const z3::expr &y) {
    for (const Product &q : products)
      if ((z3::eq(q.x, x) && z3::eq(q.y, y)) ||
          (z3::eq(q.x, y) && z3::eq(q.y, x)))
        return q.p;
    z3::expr p = freshConstant(x * y);
    terms.push_back({AbstractedFormula::Term::Product, p, x, y});
    facts.push_back(z3::implies(x == 0 || y == 0, p == 0));
    facts.push_back(z3::implies(x == 1, p == y));
    facts.push_back(z3::implies(y == 1, p == x));
    facts.push_back(z3::implies(x >= 0 && y >= 0, p >= 0));
    facts.push_back(z3::implies(x <= 0 && y <= 0, p >= 0));
    facts.push_back(z3::implies(x >= 0 && y <= 0, p <= 0));
    facts.push_back(z3::implies(x <= 0 && y >= 0, p <= 0));
    facts.push_back(z3::implies(x >= 1 && y >= 0, p >= y));
    facts.push_back(z3::implies(y >= 1 && x >= 0, p >= x));
    // Products that share a factor grow with the other one (distributivity
    // and monotonicity): `ps * per` and `(ps + 1) * per` differ by `per`.
    for (const Product &q : products)
      for (auto [a, c, b, d] : {std::tuple{x, y, q.x, q.y},
                                std::tuple{y, x, q.x, q.y},
                                std::tuple{x, y, q.y, q.x},
                                std::tuple{y, x, q.y, q.x}}) {
        // p = a * c and q = b * d with c and d the same term.
        if (!z3::eq(c, d))
          continue;
        facts.push_back(z3::implies(b == a + 1, q.p == p + c));
        facts.push_back(z3::implies(a == b + 1, p == q.p + c));
        facts.push_back(z3::implies(c >= 0 && a < b, p + c <= q.p));
        facts.push_back(z3::implies(c >= 0 && b < a, q.p + c <= p));
        facts.push_back(z3::implies(a == b, p == q.p));
        // Their sum is (a + b) * c: "it * P < -(P * q)" means it < -q
        // (a loop below a ceildivsi bound).
        facts.push_back(z3::implies(a + b == 0, p + q.p == 0));
        facts.push_back(z3::implies(c >= 0 && a + b >= 1, p + q.p >= c));
        facts.push_back(z3::implies(c >= 0 && a + b <= -1, p + q.p <= -c));
      }
    // Across any two products: larger non-negative factors, a larger
    // product ("(M ceildiv 128) * (N ceildiv 128) <= M * N").
    for (const Product &q : products)
      for (auto [a, b] : {std::pair{x, y}, std::pair{y, x}}) {
        facts.push_back(z3::implies(0 <= a && a <= q.x && 0 <= b && b <= q.y,
                                    p <= q.p));
        facts.push_back(z3::implies(0 <= q.x && q.x <= a && 0 <= q.y &&
                                        q.y <= b,
                                    q.p <= p));
      }
    // Quotients by numbers: with a = (x + c) div k and b = (y + d) div l,
    // k * l * (a * b) lies within (x + c - k + 1) * (y + d - l + 1) and
    // (x + c) * (y + d), linear in x * y ("the tile count
    // (M ceildiv 128) * (N ceildiv 128) is about M * N / 2^14").
    for (const Product &q : products)
      for (auto [u, v] : {std::pair{x, y}, std::pair{y, x}}) {
        scaledQuotientFacts(q.p, q.x, q.y, p, u, v);
        scaledQuotientFacts(p, u, v, q.p, q.x, q.y);
      }
    products.push_back({x, y, p});
    return p;
  }

  /// When `a` is `(x + c) div k` for numbers k >= 1 and c (`x` itself is
  /// k = 1, c = 0): {k, c}.
  static std::optional<std::pair<int64_t, int64_t>>
  quotientOf(const z3::expr &a, const z3::expr &x) {
    if (z3::eq(a, x))
      return std::make_pair<int64_t, int64_t>(1, 0);
    int64_t k = 0, c = 0;
    if (!a.is_app() || a.decl().decl_kind() != Z3_OP_IDIV ||
        !a.arg(1).is_numeral_i64(k) || k < 1)
      return std::nullopt;
    z3::expr s = a.arg(0);
    if (z3::eq(s, x))
      return std::make_pair(k, int64_t(0));
    if (s.is_app() && s.decl().decl_kind() == Z3_OP_ADD && s.num_args() == 2)
      for (unsigned i = 0; i < 2; ++i)
        if (s.arg(i).is_numeral_i64(c) && z3::eq(s.arg(1 - i), x))
          return std::make_pair(k, c);
    return std::nullopt;
  }

  /// Facts bounding q = a * b by p = x * y where a and b are quotients of x
  /// and y by numbers (see quotientOf).
  void scaledQuotientFacts(const z3::expr &q, const z3::expr &a,
                           const z3::expr &b, const z3::expr &p,
                           const z3::expr &x, const z3::expr &y) {
    auto qa = quotientOf(a, x), qb = quotientOf(b, y);
    if (!qa || !qb || (qa->first == 1 && qb->first == 1))
      return;
    z3::expr k = ctx.int_val(qa->first), c = ctx.int_val(qa->second);
    z3::expr l = ctx.int_val(qb->first), d = ctx.int_val(qb->second);
    // k * a <= x + c < k * a + k, the same for b. Coefficients folded to
    // numbers: the facts must stay linear.
    z3::expr kl = (k * l).simplify(), cd = (c * d).simplify();
    facts.push_back(z3::implies(a >= 0 && b >= 0 && x + c >= 0 && y + d >= 0,
                                kl * q <= p + d * x + c * y + cd));
    z3::expr c1 = (c - k + 1).simplify(), d1 = (d - l + 1).simplify();
    facts.push_back(
        z3::implies(x + c1 >= 0 && y + d1 >= 0,
                    kl * q >= p + d1 * x + c1 * y + (c1 * d1).simplify()));
  }

  // Z3's div and mod are Euclidean: a = b * (a div b) + (a mod b) with
  // 0 <= a mod b < |b| for b != 0. Both of one (a, b) share the quotient,
  // so that the remainder is tied to it ("equal quotients and remainders
  // mean equal dividends": pid + i * P stored at block (t div n, t mod n)).
  z3::expr divide(const z3::expr &a, const z3::expr &b) {
    auto key = std::make_pair(a.id(), b.id());
    auto it = quotients.find(key);
    if (it != quotients.end())
      return it->second.first;
    z3::expr q = freshConstant(a / b);
    terms.push_back({AbstractedFormula::Term::Quotient, q, a, b});
    facts.push_back(z3::implies(b == 1, q == a));
    facts.push_back(z3::implies(b >= 1 && a >= 0, q >= 0 && q <= a));
    facts.push_back(z3::implies(b >= 1 && a >= 0 && a < b, q == 0));
    facts.push_back(z3::implies(b >= 2 && a >= 1, q < a));
    // b * q as a product of its own, so that it meets the kernel's products
    // of q ("split E - 1 ends at (E - 1) * per + per = E * per >= n").
    z3::expr m = scaledProduct(b, q);
    facts.push_back(z3::implies(b >= 1, m <= a && a < m + b));
    facts.push_back(z3::implies(b <= -1, m <= a && a < m - b));
    quotients.emplace(key, std::make_pair(q, m));
    return q;
  }

  z3::expr modulo(const z3::expr &a, const z3::expr &b) {
    z3::expr r = freshConstant(z3::mod(a, b));
    terms.push_back({AbstractedFormula::Term::Remainder, r, a, b});
    divide(a, b);
    z3::expr m = quotients.find(std::make_pair(a.id(), b.id()))->second.second;
    facts.push_back(z3::implies(b != 0, r == a - m));
    facts.push_back(z3::implies(b >= 1, r >= 0 && r < b));
    facts.push_back(z3::implies(b <= -1, r >= 0 && r < -b));
    facts.push_back(z3::implies(b >= 1 && a >= 0, r <= a));
    facts.push_back(z3::implies(b >= 1 && a >= 0 && a < b, r == a));
    facts.push_back(z3::implies(b == 1, r == 0));
    return r;
  }

  z3::context &ctx;
  z3::expr_vector facts;
  std::unordered_map<unsigned, z3::expr> memo;
  std::unordered_map<unsigned, bool> bound;
  std::vector<z3::expr> inputs;
  llvm::DenseSet<unsigned> inputIds;
  bool quantified = false;
  struct Product {
    z3::expr x, y, p; // p stands for x * y
  };
  std::vector<Product> products;
  /// (a, b) -> (a div b, b * (a div b)), by term ids.
  std::map<std::pair<unsigned, unsigned>, std::pair<z3::expr, z3::expr>>
      quotients;
  unsigned count = 0;
};
} // namespace

void Prover::dump(llvm::StringRef what, const std::string &text,
                  llvm::StringRef suffix) {
  if (dumpDir.empty())
    return;
  llvm::sys::fs::create_directories(dumpDir);
  llvm::SmallString<128> path(dumpDir);
  llvm::sys::path::append(path, dumpPrefix + "-" +
                                    std::to_string(queries - 1) + suffix +
                                    ".smt2");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << "; " << what << "\n" << text;
}

/// `text` with the names Z3 gives let-bound terms (`$x514`, `?x116`: the
/// terms' ids, which depend on every term the context ever freed) numbered
/// in order of appearance. Binders only: the query is the same terms, and
/// its text no longer depends on the process's history -- the verdict
/// cache's key and the dumped queries are the same run after run.
static std::string numberLets(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  llvm::StringMap<unsigned> numbers;
  auto isDelimiter = [](char c) {
    return c == '(' || c == ')' || c == ' ' || c == '\n' || c == '\t';
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '|') { // a quoted symbol: as it is
      size_t end = text.find('|', i + 1);
      end = end == llvm::StringRef::npos ? text.size() : end + 1;
      out.append(text.data() + i, end - i);
      i = end;
      continue;
    }
    bool tokenStart = i == 0 || isDelimiter(text[i - 1]);
    if (tokenStart && (c == '$' || c == '?') && i + 2 < text.size() &&
        text[i + 1] == 'x' && llvm::isDigit(text[i + 2])) {
      size_t end = i + 2;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      if (end == text.size() || isDelimiter(text[end])) {
        llvm::StringRef name = text.slice(i, end);
        unsigned n = numbers.try_emplace(name, numbers.size()).first->second;
        out += c;
        out += 'x';
        out += std::to_string(n);
        i = end;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

/// The file of the cached verdict of a query (see setVerdictCache): named
/// by a hash of everything solve() decides it from.
static std::string verdictPath(llvm::StringRef dir, const std::string &text,
                               const std::vector<z3::expr> &minimal,
                               uint64_t limit, int engine) {
  unsigned major, minor, build, revision;
  Z3_get_version(&major, &minor, &build, &revision);
  llvm::SHA256 hash;
  // Bump the first line when solve() decides a query differently.
  hash.update(llvm::formatv("tiletag-verdict 1\nz3 {0}.{1}.{2}.{3}\nengine "
                            "{4}\nrlimit {5}\n",
                            major, minor, build, revision, engine, limit)
                  .str());
  for (const z3::expr &t : minimal)
    hash.update("minimal " + t.to_string() + "\n");
  hash.update(text);
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, llvm::toHex(hash.final(), /*LowerCase=*/true));
  return std::string(path);
}

/// A cache entry: "unsat R", "unknown R" and the reason, or "sat R" and the
/// model's constants, one "NAME<tab>Int|Bool<tab>VALUE" line each.
static std::optional<std::string> entryOf(const Verdict &v) {
  std::string out = (v.kind == Verdict::Unsat ? "unsat "
                     : v.kind == Verdict::Sat ? "sat "
                                              : "unknown ") +
                    std::to_string(v.resources) + "\n";
  if (v.kind == Verdict::Unknown)
    return out + v.reason;
  if (v.kind == Verdict::Unsat)
    return out;
  // Only models of integer and Boolean constants are kept (no functions:
  // Z3's interpretations of division by zero, say).
  const z3::model &m = *v.model;
  if (m.num_funcs())
    return std::nullopt;
  for (unsigned i = 0; i < m.num_consts(); ++i) {
    z3::func_decl d = m.get_const_decl(i);
    z3::expr value = m.get_const_interp(d);
    std::string name = d.name().str();
    if (d.name().kind() != Z3_STRING_SYMBOL ||
        name.find_first_of("\t\n") != std::string::npos)
      return std::nullopt;
    if (d.range().is_int() && value.is_numeral())
      out += name + "\tInt\t" + Z3_get_numeral_string(m.ctx(), value) + "\n";
    else if (d.range().is_bool() && (value.is_true() || value.is_false()))
      out += name + "\tBool\t" + (value.is_true() ? "true" : "false") + "\n";
    else
      return std::nullopt;
  }
  return out;
}

/// The verdict kept at `path`, if there is one; a model is made in `ctx`
/// as solveInOwnContext makes it (see there).
static std::optional<Verdict>
cachedVerdict(const std::string &path, z3::context &ctx,
              const std::vector<z3::expr> &minimal) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  auto [head, rest] = (*buffer)->getBuffer().split('\n');
  auto [kind, count] = head.split(' ');
  Verdict v{Verdict::Unknown, std::nullopt, "", 0};
  if (count.getAsInteger(10, v.resources))
    return std::nullopt; // not an entry: decided again
  if (kind == "unknown") {
    v.reason = rest.str();
    return v;
  }
  if (kind == "unsat") {
    v.kind = Verdict::Unsat;
    return v;
  }
  if (kind != "sat")
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> lines;
  rest.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  llvm::SmallVector<llvm::SmallVector<llvm::StringRef, 3>> constants;
  for (llvm::StringRef line : lines) {
    auto &f = constants.emplace_back();
    line.split(f, '\t');
    if (f.size() != 3 || f[0].empty())
      return std::nullopt;
    llvm::StringRef digits = f[2];
    digits.consume_front("-");
    bool isInt =
        f[1] == "Int" && !digits.empty() && llvm::all_of(digits, llvm::isDigit);
    if (!isInt && !(f[1] == "Bool" && (f[2] == "true" || f[2] == "false")))
      return std::nullopt;
  }
  v.kind = Verdict::Sat;
  z3::context local;
  for (const z3::expr &t : minimal)
    z3::to_expr(local, Z3_translate(ctx, t, local));
  z3::model m(local);
  for (auto &f : constants) {
    bool isInt = f[1] == "Int";
    z3::func_decl d =
        local.function(f[0].str().c_str(), 0, nullptr,
                       isInt ? local.int_sort() : local.bool_sort());
    z3::expr value = isInt ? local.int_val(f[2].str().c_str())
                           : local.bool_val(f[2] == "true");
    m.add_const_interp(d, value);
  }
  v.model = z3::model(m, ctx, z3::model::translate());
  return v;
}

/// Keeps `entry` at `path`: whole or not at all (written aside, renamed).
static void keepVerdict(const std::string &path, const std::string &entry) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec)
      return;
    os << entry;
  }
  if (llvm::sys::fs::rename(tmp, path))
    llvm::sys::fs::remove(tmp);
}

Verdict Prover::solve(const std::string &text,
                      const std::vector<z3::expr> &minimal, uint64_t limit,
                      Engine engine) {
  if (cacheDir.empty())
    return solveInOwnContext(text, minimal, limit, engine);
  std::string path =
      verdictPath(cacheDir, text, minimal, limit, static_cast<int>(engine));
  if (std::optional<Verdict> v = cachedVerdict(path, ctx, minimal))
    return *v;
  Verdict v = solveInOwnContext(text, minimal, limit, engine);
  // Not an unknown that Z3 failed on (out of memory: this machine, not the
  // query).
  if (!v.failed)
    if (std::optional<std::string> entry = entryOf(v))
      keepVerdict(path, *entry);
  return v;
}

Verdict Prover::solveInOwnContext(const std::string &text,
                                  const std::vector<z3::expr> &minimal,
                                  uint64_t limit, Engine engine) {
  // Each query runs in a context of its own, parsed from its SMT-LIB text:
  // the verdict and the resources spent then depend on the query alone, not
  // on what the process asked before (Z3's heuristics follow the order in
  // which a context created its terms). The limit counts resources, not
  // time, so that a verdict is the same on a loaded or an idle machine.
  Verdict verdict{Verdict::Unknown, std::nullopt, "", 0};
  try {
    // Made here, on this thread: a context is ~17 MB that glibc hands to
    // the next one (tiletag-opt keeps freed memory), where one made ahead
    // on another thread kept a second context's pages alive and faulting.
    z3::context local;
    auto chain = [&](std::initializer_list<const char *> names) {
      std::optional<z3::tactic> t;
      for (const char *name : names)
        t = t ? *t & z3::tactic(local, name) : z3::tactic(local, name);
      return t->mk_solver();
    };
    z3::solver solver =
        engine == Engine::Core ? z3::solver(local, z3::solver::simple())
        : engine == Engine::Preprocessed
            ? chain({"simplify", "propagate-values", "solve-eqs", "smt"})
        : engine == Engine::Nonlinear
            // Z3's own tactic for this logic, without its wall-clock
            // `try_for` steps: nlsat counts resources.
            ? chain({"simplify", "propagate-values", "solve-eqs",
                     "elim-term-ite", "purify-arith", "simplify",
                     "tseitin-cnf", "nlsat"})
            : z3::solver(local);
    z3::params params(local);
    params.set("rlimit", static_cast<unsigned>(limit));
    // Quantifiers here range over integers (loop iterations), never over
    // terms of uninterpreted functions: model-based instantiation finds the
    // instances (the previous step of a ring), and E-matching only spends
    // resources, enough to turn ring protocols into "unknown".
    if (engine == Engine::Core || engine == Engine::Default)
      params.set("ematching", false);
    solver.set(params);
    solver.from_string(text.c_str());
    switch (solver.check()) {
    case z3::unsat:
      verdict.kind = Verdict::Unsat;
      break;
    case z3::sat: {
      // The only use of `ctx` here, and cachedVerdict does the same: what a
      // context holds decides how Z3 prints the next query, and a verdict
      // from the cache must leave `ctx` as deciding the query does.
      verdict.kind = Verdict::Sat;
      std::vector<z3::expr> terms;
      for (const z3::expr &t : minimal)
        terms.push_back(z3::to_expr(local, Z3_translate(ctx, t, local)));
      // Minimizing may cost about as much as the query itself, not more.
      uint64_t first = resourceCount(solver);
      z3::model m = minimize(
          solver, terms,
          std::min<uint64_t>(limit, std::max<uint64_t>(500000, first)));
      verdict.model = z3::model(m, ctx, z3::model::translate());
      break;
    }
    case z3::unknown:
      verdict.reason = solver.reason_unknown();
      // Tactics report the resource limit as "canceled" (nothing else
      // cancels a query: no timer is set).
      if (verdict.reason == "max. resource limit exceeded" ||
          verdict.reason == "canceled")
        verdict.reason =
            "the resource limit of " + std::to_string(limit) + " was reached";
      break;
    }
    verdict.resources = resourceCount(solver);
  } catch (const z3::exception &e) {
    verdict.reason = e.msg();
    verdict.failed = true;
  }
  return verdict;
}

z3::expr AbstractedFormula::refinement(const z3::model &model) const {
  z3::context &ctx = formula.ctx();
  z3::expr lemmas = ctx.bool_val(true);
  for (const Term &t : terms) {
    z3::expr v = model.eval(t.fresh, true), l = model.eval(t.lhs, true),
             r = model.eval(t.rhs, true);
    int64_t vr;
    switch (t.kind) {
    case Term::Product:
      if (z3::eq((l * r).simplify(), v))
        continue;
      lemmas = lemmas && z3::implies(t.lhs == l, t.fresh == l * t.rhs) &&
               z3::implies(t.rhs == r, t.fresh == t.lhs * r);
      break;
    case Term::Quotient:
    case Term::Remainder: {
      if (!r.is_numeral_i64(vr) || vr == 0)
        continue;
      z3::expr exact = t.kind == Term::Quotient ? l / r : z3::mod(l, r);
      if (z3::eq(exact.simplify(), v))
        continue;
      lemmas = lemmas &&
               z3::implies(t.rhs == r, t.fresh == (t.kind == Term::Quotient
                                                       ? t.lhs / r
                                                       : z3::mod(t.lhs, r)));
      break;
    }
    }
  }
  return lemmas.simplify();
}

/// Whether `e` has a quantifier.
static bool hasQuantifier(const z3::expr &e) {
  std::unordered_map<unsigned, bool> memo;
  std::function<bool(const z3::expr &)> visit = [&](const z3::expr &x) {
    if (x.is_quantifier())
      return true;
    auto it = memo.find(x.id());
    if (it != memo.end())
      return it->second;
    bool result = false;
    for (unsigned i = 0; x.is_app() && i < x.num_args() && !result; ++i)
      result = visit(x.arg(i));
    memo.emplace(x.id(), result);
    return result;
  };
  return visit(e);
}

/// Whether `e` multiplies two non-numeral terms or divides by one, also
/// under a quantifier.
static bool isNonlinear(const z3::expr &e) {
  std::unordered_map<unsigned, bool> memo;
  std::function<bool(const z3::expr &)> visit = [&](const z3::expr &x) {
    auto it = memo.find(x.id());
    if (it != memo.end())
      return it->second;
    bool result = false;
    if (x.is_quantifier()) {
      result = visit(x.body());
    } else if (x.is_app()) {
      Z3_decl_kind kind = x.decl().decl_kind();
      unsigned symbolic = 0;
      for (unsigned i = 0; i < x.num_args(); ++i)
        symbolic += !x.arg(i).is_numeral();
      if (kind == Z3_OP_MUL)
        result = symbolic >= 2;
      else if (kind == Z3_OP_IDIV || kind == Z3_OP_MOD || kind == Z3_OP_REM ||
               kind == Z3_OP_DIV)
        result = !x.arg(1).is_numeral();
      for (unsigned i = 0; i < x.num_args() && !result; ++i)
        result = visit(x.arg(i));
    }
    memo.emplace(x.id(), result);
    return result;
  };
  return visit(e);
}

/// `formula` with its top-level equations `c = t` (c a constant other than
/// a launch size, t no number) substituted, the equations kept as
/// conjuncts: launch-contract equations (`B.dim1 = size.N`, `nprog0 =
/// size.P`) then make one quantity one term, so that products of it meet
/// (`i * nprog0` and `P * q`).
static z3::expr substituteEquations(const z3::expr &formula) {
  z3::context &ctx = formula.ctx();
  z3::expr_vector from(ctx), to(ctx);
  llvm::DenseSet<unsigned> substituted;
  z3::expr equations = ctx.bool_val(true);
  std::vector<z3::expr> conjuncts{formula};
  while (!conjuncts.empty()) {
    z3::expr c = conjuncts.back();
    conjuncts.pop_back();
    if (c.is_and()) {
      for (unsigned i = 0; i < c.num_args(); ++i)
        conjuncts.push_back(c.arg(i));
      continue;
    }
    if (!c.is_eq() || !c.arg(0).is_int())
      continue;
    for (auto [lhs, rhs] : {std::pair{c.arg(0), c.arg(1)},
                            std::pair{c.arg(1), c.arg(0)}}) {
      // Numbers are left alone: `x = 3` keeps x a symbol of its own.
      bool constant = lhs.is_const() && !lhs.is_numeral() &&
                      lhs.decl().decl_kind() == Z3_OP_UNINTERPRETED;
      if (!constant || lhs.decl().name().str().rfind("size.", 0) == 0 ||
          rhs.is_numeral() || z3::eq(lhs, rhs))
        continue;
      if (substituted.insert(lhs.id()).second) {
        from.push_back(lhs);
        to.push_back(rhs);
        equations = equations && c;
      }
      break;
    }
  }
  if (from.empty())
    return formula;
  // Right-hand sides may name substituted constants: a few rounds reach the
  // launch sizes (a cycle only stops rewriting, it never loops).
  for (int round = 0; round < 4; ++round)
    for (unsigned i = 0; i < to.size(); ++i) {
      z3::expr next = to[i].substitute(from, to);
      to.set(i, next);
    }
  return (z3::expr(formula).substitute(from, to) && equations).simplify();
}

AbstractedFormula
mlir::tiletag::verify::abstractNonlinear(const z3::expr &formula) {
  NonlinearAbstraction abstraction(formula.ctx());
  // Simplified first, so that equal subterms written two ways (a dimension
  // behind an `ite` on a constant condition, as each program instance
  // spells it) become one term, one constant, and products that share it
  // get the facts that relate them.
  z3::expr simplified = formula.simplify();
  if (isNonlinear(simplified))
    simplified = substituteEquations(simplified);
  z3::expr rewritten = abstraction.rewrite(simplified);
  return {rewritten,
          simplified,
          abstraction.factsOf(),
          abstraction.inputConstants(),
          abstraction.changed(),
          abstraction.hasQuantifier(),
          std::move(abstraction.legend),
          std::move(abstraction.terms)};
}

Verdict Prover::check(const z3::expr &formula, llvm::StringRef what,
                      const std::vector<z3::expr> &minimal,
                      const std::vector<z3::expr> &generalizable) {
  if (halted)
    return Verdict{Verdict::Unknown, std::nullopt,
                   "stopped at the first error", 0};
  auto start = std::chrono::steady_clock::now();
  ++queries;
  std::optional<Verdict> found;
  uint64_t generalizedResources = 0;
  // The nonlinear terms among `generalizable` become fresh constants: a
  // formula true for every value of them is true for theirs. Only a proof
  // counts there (a model may give them values they never take); the
  // formula itself decides the rest.
  z3::expr_vector from(ctx), to(ctx);
  for (const z3::expr &t : generalizable)
    if (isNonlinear(t) && !hasQuantifier(t)) {
      from.push_back(t);
      to.push_back(ctx.constant(
          ("generalized#" + std::to_string(to.size())).c_str(), t.get_sort()));
    }
  if (!from.empty()) {
    z3::expr general = z3::expr(formula).substitute(from, to);
    if (!z3::eq(general, formula)) {
      Verdict v = decide(general, what, {}, resourceLimit / 8, "-generalized");
      if (v.kind == Verdict::Unsat)
        found = std::move(v);
      else
        generalizedResources = v.resources;
    }
  }
  if (!found)
    found = decide(formula, what, minimal, resourceLimit, "");
  Verdict verdict = std::move(*found);
  verdict.resources += generalizedResources;
  resources += verdict.resources;
  lastResources = verdict.resources;
  maxResources = std::max(maxResources, verdict.resources);
  millis += std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  return verdict;
}

Verdict Prover::decide(const z3::expr &formula, llvm::StringRef what,
                       const std::vector<z3::expr> &minimal,
                       uint64_t budget, llvm::StringRef suffix) {
  auto toText = [&](const z3::expr &f) {
    // SMT-LIB text without a solver: making one costs ~15 ms.
    return numberLets(Z3_benchmark_to_smtlib_string(ctx, "", "", "unknown", "",
                                                    0, nullptr, f));
  };
  std::string text = toText(formula);
  dump(what, text, suffix);
  // Nonlinear subterms abstracted (see abstractNonlinear): an unsat answer
  // there is a proof. A model of the abstraction is a candidate: with the
  // constants of the nonlinear terms fixed to its values the formula is
  // linear, and a model of that is a real one.
  AbstractedFormula abstraction = abstractNonlinear(formula);
  uint64_t spent = 0;
  auto attempt = [&](const z3::expr &query, const std::string &queryText,
                     uint64_t limit) {
    // Linear queries go to Z3's SMT core first, with a small share of the
    // limit: the default solver's tactic setup costs 10-40 ms a query, most
    // of a GEMM's verification, and the core alone decides nearly every
    // query within 30 000 resources. What it leaves undecided gets, with
    // quantifiers, the default solver (its preprocessing and qsat settle
    // ring phases), without, simplification and the core: Z3's default
    // tactics for quantifier-free arithmetic have steps limited by
    // wall-clock time (`try_for`), which would make verdicts depend on the
    // machine's load. The core's nonlinear arithmetic spends time it does
    // not count as resources, so nonlinear queries skip it; quantifier-free
    // ones go to nlsat, which counts them.
    Verdict v{Verdict::Unknown, std::nullopt, "", 0};
    bool quantified = hasQuantifier(query), nonlinear = isNonlinear(query);
    if (!nonlinear) {
      v = solve(queryText, minimal, std::min<uint64_t>(limit, kCoreLimit),
                Engine::Core);
      spent += v.resources;
    }
    if (v.kind == Verdict::Unknown) {
      v = solve(queryText, minimal, limit,
                quantified  ? Engine::Default
                : nonlinear ? Engine::Nonlinear
                            : Engine::Preprocessed);
      spent += v.resources;
    }
    v.resources = spent;
    return v;
  };
  // A candidate of the abstraction is checked with the nonlinear terms'
  // inputs fixed to its values: a model of that is a real counterexample.
  auto instanceOf = [&](const z3::model &candidate) -> std::optional<Verdict> {
    // The inputs substituted (products of numbers fold to numbers) and
    // kept as equations (the counterexample reports them).
    z3::expr_vector inputs(ctx), values(ctx);
    z3::expr fixedInputs = ctx.bool_val(true);
    for (const z3::expr &c : abstraction.inputs) {
      inputs.push_back(c);
      values.push_back(candidate.eval(c, true));
      fixedInputs = fixedInputs && c == values.back();
    }
    z3::expr fixed =
        z3::expr(abstraction.prepared).substitute(inputs, values).simplify() &&
        fixedInputs;
    std::string instance = toText(fixed);
    dump(what, instance, suffix.str() + "-instance");
    Verdict v = attempt(fixed, instance, budget / 4);
    if (v.kind == Verdict::Sat)
      return v;
    return std::nullopt;
  };
  auto throughAbstraction = [&]() -> std::optional<Verdict> {
    if (!abstraction.changed)
      return std::nullopt;
    // Refined a few times: where a candidate gives an abstracted term a
    // value its inputs do not (p = 9 with x = 2, y = 3), a lemma rules that
    // out, and the abstraction is asked again.
    z3::expr lemmas = ctx.bool_val(true);
    for (unsigned round = 0; round <= kRefinements; ++round) {
      z3::expr linear = abstraction.facts && lemmas && abstraction.formula;
      std::string linearText = toText(linear);
      dump(what, abstraction.legend + linearText,
           suffix.str() + (round ? "-abstracted-" + std::to_string(round)
                                 : "-abstracted"));
      Verdict v = attempt(linear, linearText, budget / 2);
      if (v.kind == Verdict::Unsat)
        return v;
      if (v.kind != Verdict::Sat)
        return std::nullopt;
      z3::expr more = abstraction.refinement(*v.model);
      // The first candidate, and one that gives every term its value, may
      // be a real counterexample.
      if (round == 0 || more.is_true())
        if (std::optional<Verdict> real = instanceOf(*v.model))
          return real;
      if (more.is_true())
        return std::nullopt;
      lemmas = lemmas && more;
    }
    return std::nullopt;
  };
  // Linear queries get the whole limit. Nonlinear quantified ones get a
  // small share exactly first (an assertion whose nonlinear terms do not
  // matter is decided in a few 10 000 resources, where its abstraction
  // needs refining), then the abstraction; quantifier-free ones go to the
  // abstraction first. Last, the exact formula gets the whole limit.
  std::optional<Verdict> found;
  if (abstraction.changed) {
    if (abstraction.quantified) {
      Verdict quick = attempt(formula, text, budget / 64);
      if (quick.kind != Verdict::Unknown)
        found = std::move(quick);
    }
    if (!found)
      found = throughAbstraction();
  }
  if (!found)
    found = attempt(formula, text, budget);
  return std::move(*found);
}

void Prover::recordProof(Operation *op, const llvm::Twine &what) {
  if (!log)
    return;
  ObligationVerdict v;
  v.checker = checker;
  v.what = what.str();
  v.location = locationString(op->getLoc());
  v.resources = lastResources;
  log->push_back(std::move(v));
}

bool mlir::tiletag::verify::proveSatisfiable(Prover &prover,
                                             const z3::expr &facts,
                                             Operation *at,
                                             const llvm::Twine &what) {
  std::string text = what.str();
  Verdict v = prover.check(facts, "some problem size meets " + text);
  if (v.kind == Verdict::Sat)
    return true;
  if (v.kind == Verdict::Unknown)
    mlir::emitError(at->getLoc())
        << "could not prove that some problem size meets " << text
        << ": Z3 answered unknown (" << v.reason << ")";
  else
    mlir::emitError(at->getLoc())
        << "no problem size meets " << text
        << ": they contradict each other (an operand with two shapes?), "
           "and from contradictory facts any claim would follow";
  return false;
}

mlir::FailureOr<unsigned> mlir::tiletag::verify::proveDefinedness(
    SymbolicModel &model, Prover &prover, Instance &inst) {
  if (!proveSatisfiable(prover,
                        model.assumptions() && model.operandsFitInMemory(),
                        model.getKernel(), "the kernel's launch contract"))
    return failure();
  const std::vector<Obligation> &obligations = model.definedness(inst);
  if (obligations.empty())
    return 0u;
  z3::context &ctx = model.context();
  z3::expr all = ctx.bool_val(true);
  for (const Obligation &o : obligations)
    all = all && o.holds;
  Verdict v = prover.check(model.assumptions() &&
                               model.operandsFitInMemory() && !all,
                           "integer operations are defined and exact",
                           model.minimalOrder());
  if (v.kind == Verdict::Unsat) {
    for (const Obligation &o : obligations)
      prover.recordProof(o.op, "ruled out: " + o.what);
    return static_cast<unsigned>(obligations.size());
  }
  if (v.kind == Verdict::Unknown) {
    mlir::emitError(model.getKernel().getLoc())
        << "could not prove that the kernel's integer operations are "
           "defined (no division by zero, no wrap-around, ...): Z3 answered "
           "unknown ("
        << v.reason << ")";
    return failure();
  }
  for (const Obligation &o : obligations) {
    if (v.model->eval(o.holds, true).is_true())
      continue;
    std::pair<Operation *, Instance *> at[] = {{o.op, &inst}};
    prover.setCounterexample(model.counterexample(*v.model, at));
    InFlightDiagnostic diag = mlir::emitError(o.op->getLoc()) << o.what;
    diag.attachNote(o.op->getLoc()) << model.describe(*v.model, o.op, &inst);
    diag.attachNote() << "replay on the CPU: "
                      << model.replayCommand(*v.model);
  }
  return failure();
}


//===- IntegerSemanticsTest.cpp - the model agrees with the oracle --------===//
//
// Part of the TileTag project.
//
// A differential test: every scalar integer operation the symbolic model
// follows is evaluated on edge and random operands both through the model
// (its Z3 term and its definedness obligations, with the operands fixed) and
// through the oracle's exact evaluator (the interpreter's arithmetic), and
// the two must agree:
//   - the oracle reports undefined behaviour => an obligation of the model
//     fails (the checker would reject the kernel);
//   - the oracle gives v => the model's obligations fail (only where the
//     model demands no wrap-around and MLIR wraps) or its term is exactly v.
// A model that is unconstrained for an op may only be so for the ops it
// documents as not followed (shifts and bitwise ops of two variables).
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Execution/IntegerArith.h"
#include "TileTag/InitAll.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::tiletag;
using llvm::APInt;

namespace {

/// One form of an operation: its text over operands %a, %b (and %c: i1),
/// where `constant` operands are arith.constant values substituted in the
/// text instead of kernel operands.
struct Form {
  std::string op;          // e.g. "arith.divsi"
  std::string body;        // "%r = arith.divsi %a, %b : i32"
  std::string typeA, typeB; // operand types ("" if absent)
  bool constantB = false;   // %b is a constant (the model's special cases)
  bool mayBeOpaque = false; // documented as not followed exactly
};

class IntegerSemanticsTest : public ::testing::Test {
protected:
  IntegerSemanticsTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  static unsigned width(StringRef type) {
    if (type == "index")
      return 64;
    unsigned w = 0;
    type.drop_front(1).getAsInteger(10, w);
    return w;
  }

  /// Edge values at `w` bits, then `n` random ones.
  static std::vector<APInt> values(unsigned w, unsigned n, std::mt19937_64 &rng) {
    std::vector<APInt> out;
    if (w == 1)
      return {APInt(1, 0), APInt(1, 1)};
    for (int64_t v : {0, 1, -1, 2, -2, 7, -7, 3})
      out.push_back(APInt(64, v, true).trunc(w));
    out.push_back(APInt::getSignedMinValue(w));
    out.push_back(APInt::getSignedMinValue(w) + 1);
    out.push_back(APInt::getSignedMaxValue(w));
    out.push_back(APInt::getSignedMaxValue(w) - 1);
    if (w == 64) {
      out.push_back(APInt(64, int64_t{1} << 32, true));
      out.push_back(APInt(64, -(int64_t{1} << 62), true));
    }
    for (unsigned i = 0; i < n; ++i) {
      // Random magnitudes: small, mid-range and full-width values.
      uint64_t r = rng();
      unsigned bits = 1 + rng() % w;
      out.push_back(APInt(64, bits >= 64 ? r : r & ((uint64_t{1} << bits) - 1))
                        .trunc(w));
    }
    return out;
  }

  z3::expr valueTerm(z3::context &ctx, const APInt &v, bool isBool) {
    if (isBool)
      return ctx.bool_val(v.isOne());
    return ctx.int_val(v.getSExtValue());
  }

  /// The model's value as an APInt of width `w`, if it is a numeral.
  static std::optional<APInt> numeral(const z3::expr &e, unsigned w) {
    if (e.is_bool()) {
      if (e.is_true() || e.is_false())
        return APInt(1, e.is_true());
      return std::nullopt;
    }
    int64_t n;
    if (!e.is_numeral_i64(n))
      return std::nullopt;
    APInt v(64, n, true);
    // The model's value must be the signed value at the width.
    if (w < 64 && v != v.trunc(w).sext(64))
      return APInt(); // out of range: a disagreement
    return v.trunc(w);
  }

  void check(const Form &form, unsigned randomCount = 24) {
    SCOPED_TRACE(form.body);
    std::mt19937_64 rng(0x7117a6);
    unsigned wa = width(form.typeA), wb = form.typeB.empty() ? 0 : width(form.typeB);
    std::vector<APInt> as = values(wa, randomCount, rng);
    std::vector<APInt> bs = wb ? values(wb, randomCount, rng) : std::vector<APInt>{APInt()};
    unsigned checked = 0;
    for (const APInt &b : bs) {
      // A constant %b is part of the kernel text; a symbolic one is an operand.
      std::string operands = "%a: " + form.typeA + " {tile.name = \"a\"}";
      std::string prologue;
      if (wb && !form.constantB)
        operands += ", %b: " + form.typeB + " {tile.name = \"b\"}";
      if (wb && form.constantB)
        prologue = "%b = arith.constant " +
                   (wb == 1 ? std::string(b.isOne() ? "true" : "false")
                            : llvm::toString(b, 10, true) + " : " + form.typeB) +
                   "\n";
      if (form.body.find("%c") != std::string::npos)
        operands += ", %c: i1 {tile.name = \"c\"}";
      std::string text = "tile.kernel @k(" + operands + ") grid(1) {\n" +
                         prologue + form.body + "\ntile.return\n}";
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
      ASSERT_TRUE(module) << text;
      auto kernel = *module->getOps<tile::KernelOp>().begin();
      Operation *op = nullptr;
      kernel.walk([&](Operation *o) {
        if (o->getName().getStringRef() == form.op)
          op = o;
      });
      ASSERT_TRUE(op);
      std::optional<exec::IntegerOp> decoded = exec::decodeIntegerOp(op);
      ASSERT_TRUE(decoded) << form.op;
      Value result = op->getResult(0);
      unsigned wr = exec::integerWidth(result.getType());

      z3::context ctx;
      verify::SymbolicModel model(kernel, ctx);
      verify::Instance inst{"", {}, ""};
      const std::vector<verify::Obligation> &obligations =
          model.definedness(inst);
      z3::expr term = model.term(result, inst);
      z3::expr defined = ctx.bool_val(true);
      for (const verify::Obligation &o : obligations)
        defined = defined && o.holds;

      auto symbolOf = [&](StringRef name) -> std::optional<z3::expr> {
        for (const verify::Symbol &s : model.symbols())
          if (s.name == name)
            return s.expr;
        return std::nullopt;
      };
      std::optional<z3::expr> symA = symbolOf("a"), symB = symbolOf("b"),
                              symC = symbolOf("c");
      for (const APInt &a : as) {
        for (const APInt &c : {APInt(1, 1), APInt(1, 0)}) {
          if (!symC && c.isZero())
            continue;
          SmallVector<APInt> args;
          z3::expr_vector from(ctx), to(ctx);
          if (symC) {
            args.push_back(c);
            from.push_back(*symC);
            to.push_back(valueTerm(ctx, c, true));
          }
          args.push_back(a);
          if (symA) {
            from.push_back(*symA);
            to.push_back(valueTerm(ctx, a, wa == 1));
          }
          if (wb) {
            args.push_back(b);
            if (symB) {
              from.push_back(*symB);
              to.push_back(valueTerm(ctx, b, wb == 1));
            }
          }
          // Operands in the op's order: select takes (c, a, b).
          if (!isa<arith::SelectOp>(op) && symC)
            args.erase(args.begin());
          std::string undefined;
          FailureOr<APInt> oracle =
              exec::evaluateIntegerOp(*decoded, args, undefined);
          z3::expr isDefined = defined.substitute(from, to).simplify();
          z3::expr value = term.substitute(from, to).simplify();
          std::string where = "a=" + llvm::toString(a, 10, true) +
                              (wb ? " b=" + llvm::toString(b, 10, true) : "");
          ASSERT_TRUE(isDefined.is_true() || isDefined.is_false())
              << where << ": obligations not decided: " << isDefined.to_string();
          if (failed(oracle)) {
            EXPECT_TRUE(isDefined.is_false())
                << where << ": the oracle says '" << undefined
                << "' but the model proves the op defined";
            ++checked;
            continue;
          }
          if (isDefined.is_false()) {
            // Only a no-wrap demand may reject a defined execution: then
            // the mathematical result differs from the wrapped one.
            EXPECT_TRUE((isa<arith::AddIOp, arith::SubIOp, arith::MulIOp,
                             arith::ShLIOp>(op)))
                << where << ": the model rejects a defined "
                << form.op << " (= " << llvm::toString(*oracle, 10, true) << ")";
            ++checked;
            continue;
          }
          std::optional<APInt> v = numeral(value, wr);
          if (!v) {
            EXPECT_TRUE(form.mayBeOpaque)
                << where << ": the model does not determine the value: "
                << value.to_string();
            ++checked;
            continue;
          }
          ASSERT_EQ(v->getBitWidth(), oracle->getBitWidth())
              << where << ": the model's value " << value.to_string()
              << " is out of the range of the type";
          EXPECT_EQ(*v, *oracle)
              << where << ": model " << llvm::toString(*v, 10, true)
              << ", oracle " << llvm::toString(*oracle, 10, true);
          ++checked;
        }
      }
      if (!form.constantB)
        break; // symbolic %b: one kernel covers every value
    }
    EXPECT_GT(checked, 0u);
  }

  /// Forms of a binary op over `type`: symbolic operands, and a constant rhs.
  void binary(StringRef op, StringRef type, bool mayBeOpaque = false,
              StringRef flags = "") {
    std::string body = "%r = " + op.str() + " %a, %b" +
                       (flags.empty() ? "" : " overflow<" + flags.str() + ">") +
                       " : " + type.str();
    check({op.str(), body, type.str(), type.str(), false, mayBeOpaque});
    check({op.str(), body, type.str(), type.str(), true, mayBeOpaque}, 12);
  }

  MLIRContext context;
};

constexpr StringLiteral kTypes[] = {"index", "i32", "i8"};

TEST_F(IntegerSemanticsTest, AddSubMul) {
  for (StringRef t : kTypes)
    for (StringRef op : {"arith.addi", "arith.subi", "arith.muli"}) {
      binary(op, t);
      binary(op, t, false, "nsw");
      binary(op, t, false, "nuw");
    }
}

TEST_F(IntegerSemanticsTest, Division) {
  for (StringRef t : kTypes)
    for (StringRef op : {"arith.divui", "arith.divsi", "arith.remui",
                         "arith.remsi", "arith.ceildivui", "arith.ceildivsi",
                         "arith.floordivsi"})
      binary(op, t);
}

TEST_F(IntegerSemanticsTest, MinMax) {
  for (StringRef t : kTypes)
    for (StringRef op :
         {"arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui"})
      binary(op, t);
}

TEST_F(IntegerSemanticsTest, ShiftsAndBitwise) {
  for (StringRef t : kTypes) {
    // With a constant operand the model is exact; with two variables it
    // is not followed.
    for (StringRef op : {"arith.shli", "arith.shrui", "arith.shrsi",
                         "arith.andi", "arith.ori", "arith.xori"}) {
      std::string body = "%r = " + op.str() + " %a, %b : " + t.str();
      check({op.str(), body, t.str(), t.str(), false, /*mayBeOpaque=*/true});
      check({op.str(), body, t.str(), t.str(), true, false}, 12);
    }
  }
  for (StringRef op : {"arith.andi", "arith.ori", "arith.xori", "arith.addi",
                       "arith.subi", "arith.muli"})
    binary(op, "i1");
}

TEST_F(IntegerSemanticsTest, Compare) {
  for (StringRef t : {"index", "i32", "i8", "i1"})
    for (StringRef pred : {"eq", "ne", "slt", "sle", "sgt", "sge", "ult",
                           "ule", "ugt", "uge"}) {
      std::string body = "%r = arith.cmpi " + pred.str() + ", %a, %b : " + t.str();
      check({"arith.cmpi", body, t.str(), t.str(), false, false});
    }
}

TEST_F(IntegerSemanticsTest, SelectAndCasts) {
  for (StringRef t : {"index", "i32", "i1"})
    check({"arith.select", "%r = arith.select %c, %a, %b : " + t.str(),
           t.str(), t.str(), false, false});
  struct Cast {
    StringRef op, from, to;
  };
  for (Cast c : {Cast{"arith.index_cast", "index", "i32"},
                 Cast{"arith.index_cast", "i32", "index"},
                 Cast{"arith.index_cast", "i1", "index"},
                 Cast{"arith.index_castui", "index", "i32"},
                 Cast{"arith.index_castui", "i32", "index"},
                 Cast{"arith.extsi", "i8", "i32"},
                 Cast{"arith.extsi", "i1", "i32"},
                 Cast{"arith.extui", "i8", "i32"},
                 Cast{"arith.extui", "i1", "i32"},
                 Cast{"arith.trunci", "i32", "i8"},
                 Cast{"arith.trunci", "i32", "i1"},
                 Cast{"arith.trunci", "i64", "i32"}}) {
    std::string body = "%r = " + c.op.str() + " %a : " + c.from.str() + " to " +
                       c.to.str();
    check({c.op.str(), body, c.from.str(), "", false, false}, 64);
  }
  for (StringRef flags : {"nsw", "nuw"})
    check({"arith.trunci",
           "%r = arith.trunci %a overflow<" + flags.str() + "> : i32 to i8",
           "i32", "", false, false},
          64);
}

} // namespace

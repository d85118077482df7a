// The Mandelbrot panel's formulas and Julia sets (kernels/formula): the formula selector, the
// Julia toggle under the mouse (J), and the worker that draws such views through formula::render,
// the library call `deepscope render --formula NAME --julia-re RE --julia-im IM` makes.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "app/cli/render_formula.h"
#include "kernels/mandelbrot/navigate.h"
#include "panel_mandelbrot.h"

namespace ds::gui {

std::string MandelbrotPanel::plane_label() const {
  std::string s = formula::to_string(formula_);
  if (julia_.on()) s += ", Julia set of " + formula::julia_text(julia_);
  return s;
}

formula::FormulaOptions MandelbrotPanel::formula_options() const {
  formula::FormulaOptions o;
  o.julia = julia_;
  o.path = arith_index_ < 0 ? formula::FormulaPath::kPerturb : formula::FormulaPath::kAuto;
  o.max_fallback = 10000;  // render's --max-references default
  return o;
}

void MandelbrotPanel::set_formula(const std::string& text) {
  const formula::Formula f = formula::parse_formula(text);
  if (f == formula_) return;
  formula_ = f;
  dirty_ = true;
}

void MandelbrotPanel::toggle_julia(double x, double y) {
  View v = view_;
  if (!julia_.on()) {
    std::string re, im;
    mandel::point_at(view_, x, y, &re, &im);
    julia_ = formula::parse_julia(re, im, "the point's re", "the point's im");  // |c| > 2: refused
    plane_view_ = view_;
    has_plane_view_ = true;
    v.re = "0";
    v.im = "0";
    v.zoom = "1";
  } else {
    const formula::JuliaSeed seed = julia_;
    julia_ = formula::JuliaSeed{};
    if (has_plane_view_) {
      const int w = v.width, h = v.height;
      v = plane_view_;
      v.width = w;
      v.height = h;
    } else {  // a Julia set opened from a file: its seed's neighbourhood
      v.re = seed.re;
      v.im = seed.im;
      v.zoom = "1";
    }
    has_plane_view_ = false;
  }
  set_view(v);
}

void MandelbrotPanel::draw_formula() {
  const std::vector<std::string> names = formula::formula_names();
  const std::string current = formula::to_string(formula_);
  if (ImGui::BeginCombo("formula", current.c_str())) {
    for (const std::string& n : names)
      if (ImGui::Selectable(n.c_str(), n == current)) set_formula(n);
    for (const char* hybrid : {"mandelbrot,burning-ship", "burning-ship,mandelbar,celtic"})
      if (ImGui::Selectable(hybrid, current == hybrid)) set_formula(hybrid);
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the formula iterated (docs/formulas.md); other than z^2 + c it renders on the CPU,\n"
                      "as `deepscope render --formula NAME` does");
  if (julia_.on()) {
    ImGui::TextWrapped("Julia set of %s", formula::julia_text(julia_).c_str());
    if (ImGui::SmallButton("back to the parameter plane (J)")) toggle_julia(0, 0);
  } else {
    ImGui::TextDisabled("J: the Julia set of the point under the mouse");
  }
}

bool MandelbrotPanel::run_with(const std::string& settings, std::string* error) {
  std::istringstream in(settings);
  std::string word;
  View v = view_;
  std::string formula_text;
  formula::JuliaSeed julia = julia_;
  bool julia_set = false;
  try {
    while (in >> word) {
      const size_t eq = word.find('=');
      const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
      if (key == "formula") {
        formula_text = value;
        formula::parse_formula(value);
      } else if (key == "julia") {
        julia_set = true;
        if (value == "off") {
          julia = formula::JuliaSeed{};
        } else {
          const size_t comma = value.find(',');
          if (comma == std::string::npos) throw formula::FormulaError("julia takes RE,IM or off, got \"" + value + "\"");
          julia = formula::parse_julia(value.substr(0, comma), value.substr(comma + 1));
        }
      } else if (key == "re") {
        v.re = value;
      } else if (key == "im") {
        v.im = value;
      } else if (key == "zoom") {
        v.zoom = value;
      } else if (key == "iter") {
        if (!mandel::parse_iterations(value, &v.max_iter)) throw formula::FormulaError("iter: not a count: " + value);
      } else {
        *error = "the Mandelbrot tab has no setting \"" + key + "\" (formula, julia, re, im, zoom, iter)";
        return false;
      }
    }
    mandel::geometry(v);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  if (!formula_text.empty()) set_formula(formula_text);
  if (julia_set) {
    if (julia.on() && !julia_.on()) {
      plane_view_ = view_;
      has_plane_view_ = true;
    }
    julia_ = julia;
  }
  set_view(v);
  return true;
}

// The formula worker: the 1/16 and 1/4 previews and the full frame, each a whole formula::render
// (direct binary64 or perturbation, then the MPFR fallback) stored into its canvas. The format line
// says what ran and how many pixels binary64 left undecided, MPFR decided, and stayed UNRESOLVED.
void MandelbrotPanel::start_formula_render(const View& v, uint64_t gen, colour::Canvas* full,
                                           colour::Canvas* coarse, colour::Canvas* glimpse, bool coarse_only) {
  const formula::Formula f = formula_;
  formula::FormulaOptions base = formula_options();
  const std::string label = plane_label();
  job_.start([this, v, gen, full, coarse, glimpse, coarse_only, f, base, label](JobControl& ctl) {
    Published p;
    p.generation = gen;
    p.max_iter = v.max_iter;
    p.backend = "cpu";
    const auto pass = [&](colour::Canvas* canvas, const char* stage, double from, double to, bool is_glimpse,
                          bool last) {
      View pv = v;
      pv.width = canvas->width();
      pv.height = canvas->height();
      formula::FormulaOptions o = base;
      o.cancel = &ctl.cancel;
      o.progress = [&ctl, from, to](double q) { ctl.progress = from + (to - from) * q; };
      o.stage = [&ctl, stage](const char* s) { ctl.set_stage(std::string(stage) + s); };
      formula::FormulaReport rep;
      const mandel::RenderResult r = formula::render(pv, f, o, &rep);
      if (r.cancelled || ctl.cancel) return false;
      canvas->store(r);
      char buf[400];
      std::snprintf(buf, sizeof buf,
                    "%s by %s: %llu of %llu pixels undecided in binary64, %llu decided by MPFR%s", label.c_str(),
                    formula::method_name(rep).c_str(), static_cast<unsigned long long>(rep.undecided),
                    static_cast<unsigned long long>(rep.pixels), static_cast<unsigned long long>(rep.fallback),
                    rep.unresolved ? (", " + std::to_string(rep.unresolved) + " UNRESOLVED: not right").c_str() : "");
      p.arith = buf;
      p.glimpse = is_glimpse;
      if (last) {
        p.rows_done = pv.height;
        p.final = true;
        p.seconds = r.seconds;
        p.iterations = r.iterations;
      }
      publish(p);
      return true;
    };
    const double coarse_from = glimpse ? 0.05 : 0.0;
    if (glimpse && !pass(glimpse, "preview 1/16: ", 0.0, coarse_from, true, false)) return;
    if (!pass(coarse, "preview 1/4: ", coarse_from, 0.1, false, false)) return;
    if (coarse_only) return;
    pass(full, "", 0.1, 1.0, false, true);
  });
}

}  // namespace ds::gui

// The window's backend of the plotting layer (app/io/plot.h): paints a figure's layout with ImGui's
// draw lists, and shows the nearest point's x and y (named by the axes' labels) while the mouse is
// over the plot.
#pragma once
#include <functional>
#include <string>

#include "app/io/plot.h"

struct ImDrawList;

namespace ds::gui {

// Draws `f` as an item `width` x `height` pixels at the cursor (width <= 0: the available width).
// Returns the layout, whose transform places overlays (markers) on the same axes. `underlay`, if
// set, draws over the background and under the data, ticks and frame (an image in the plot area).
app::plot::Layout draw_plot(const char* id, const app::plot::Figure& f, float width, float height,
                            const std::function<void(const app::plot::Layout&, ImDrawList*)>& underlay = {});
// The layout `f` would get in the rectangle [x0, x1) x [y0, y1) with the window's font.
app::plot::Layout plot_layout(const app::plot::Figure& f, float x0, float y0, float x1, float y1);

// An error message in the panels' red, wrapped at the region's right edge (never clipped); nothing
// for an empty one.
void error_text(const std::string& message);

}  // namespace ds::gui

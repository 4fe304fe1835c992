// A monkey in the real window (issue 38 part 3): random input through xdotool, which GLFW
// and ImGui see as a person's, for TP_MONKEY_SECONDS (120 in the default run; an hour with
// `./test.sh -L soak`, docs/testing.md): drags of every kind (the water, ctrl on bodies and
// obstacles, orbit, pan), the wheel, the keys (solvers, pause, step, reset, the panel, F5,
// F9, F12), clicks and drags to the ends of the panel's sliders and buttons, scene
// switches through the scene list (water and gas), window resizes. A session is recorded
// throughout (F8, started again whenever it stops), so a failure leaves a file that replays
// it. The seed is printed (TP_MONKEY_SEED repeats a run's choices).
//
// Criteria: the app never exits or crashes, --gl-check sees no OpenGL error, the NaN guard
// never speaks, no particle is outside the tank or not finite at the end; at checkpoints
// (the dam break loaded from the scene list, its frames counted for 4 s, then paused and
// reset to its start, the window at 1280x900, the resident size read as the app trims with
// no frame in flight) the memory does not grow after the first minute: the last third of
// the checkpoints within 5 % of the first third (medians; 50 % in the two-minute run, which
// catches a gross leak), and the frames a second do not drift down.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

const char* const kWaterScenes[] = {"dam_break", "pool", "floating", "water_wheel", "boat", "cup", "fountain",
                                    "drop_into_pool", "dam_break_2d", "floating_2d", "obstacles", "droplets"};
const char* const kGasScenes[] = {"plume", "ink_box", "smoke_obstacles", "cavity"};

// The resident memory of the malloc heap ([heap]), of anonymous mappings (the other
// threads' malloc arenas, large allocations, the driver's buffers) and of files (code,
// shared libraries), from /proc/PID/smaps: where a growth between checkpoints lies.
struct ResidentParts {
  long heap_kb = 0, anon_kb = 0, file_kb = 0;
};
ResidentParts resident_parts(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps");
  std::string line;
  ResidentParts r;
  long* into = &r.anon_kb;
  while (std::getline(in, line)) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < 17) {
      const size_t path = line.find_first_of("/[", 20);
      const std::string name = path == std::string::npos ? "" : line.substr(path);
      into = name == "[heap]" ? &r.heap_kb : !name.empty() && name[0] == '/' ? &r.file_kb : &r.anon_kb;
    } else if (line.rfind("Rss:", 0) == 0) {
      *into += std::atol(line.c_str() + 4);
    }
  }
  return r;
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Monkey {
 public:
  // `scene_share`: of the actions, the share of scene switches (each takes seconds).
  Monkey(RunningApp& app, unsigned long window, uint32_t seed, double scene_share)
      : app_(app), w_(window), rng_(seed), scene_share_(scene_share) {}

  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string win() const { return std::to_string(w_); }
  std::string point(double fx, double fy) const {
    return "mousemove --window " + win() + " " + std::to_string(int(fx * width_)) + " " + std::to_string(int(fy * height_));
  }
  void count(const std::string& kind) { ++counts_[kind]; }
  const std::map<std::string, int>& counts() const { return counts_; }

  // A drag with `button` (1 left, 2 middle, 3 right) through a few points of the view.
  std::string drag(int button) {
    std::string s = point(uniform(0.35, 0.95), uniform(0.15, 0.85)) + " mousedown " + std::to_string(button);
    const int moves = 2 + pick(4);
    for (int k = 0; k < moves; ++k) s += " sleep 0.05 " + point(uniform(0.3, 0.98), uniform(0.1, 0.9));
    return s + " mouseup " + std::to_string(button);
  }

  void act() {
    static const char* keys[] = {"1", "2", "3", "4", "space", "s", "r", "Tab", "F5", "F9", "F12", "v"};
    // Keys have three kinds of the thirteen (5, 6, 12): with two of twelve an hour pressed
    // each of the twelve keys 88 to 116 times, where the issue asks 100.
    int kind = pick(13);
    if ((kind == 10 || kind == 11) && uniform(0.0, 1.0) >= 6.0 * scene_share_) kind = pick(10);  // (their share)
    const auto started = std::chrono::steady_clock::now();
    struct Timed {
      Monkey& m;
      int kind;
      std::chrono::steady_clock::time_point t;
      ~Timed() { m.seconds_[kind] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); }
    } timed{*this, kind, started};
    switch (kind) {
      case 0: send(drag(1)); count("water drag"); break;
      case 1: send("keydown ctrl " + drag(1) + " keyup ctrl"); count("ctrl drag (bodies, obstacles)"); break;
      case 2: send(drag(3)); count("orbit"); break;
      case 3: send(drag(2)); count("pan"); break;
      case 4: send(point(uniform(0.4, 0.9), uniform(0.2, 0.8)) + " click --repeat " + std::to_string(1 + pick(3)) +
                   (pick(2) ? " 4" : " 5"));
              count("wheel"); break;
      case 5: case 6: case 12: {
        const char* key = keys[pick(12)];
        send("key " + std::string(key));
        count(std::string("key ") + key);
        break;
      }
      case 7: {  // a click anywhere on the panel (a button, a checkbox, a header, a combo)
        send("mousemove --window " + win() + " " + std::to_string(15 + pick(325)) + " " +
             std::to_string(40 + pick(std::max(height_ - 120, 60))) + " click 1");
        count("panel click");
        break;
      }
      case 8: {  // a press on the panel dragged to an end of the window (a slider to its end)
        const int y = 40 + pick(std::max(height_ - 120, 60));
        send("mousemove --window " + win() + " " + std::to_string(120 + pick(220)) + " " + std::to_string(y) +
             " mousedown 1 sleep 0.1 mousemove --window " + win() + " " + std::to_string(pick(2) ? 0 : width_ - 1) +
             " " + std::to_string(y) + " sleep 0.1 mouseup 1");
        count("panel drag to an end");
        break;
      }
      case 9: {
        width_ = 800 + pick(481);
        height_ = 600 + pick(401);
        send("windowsize --sync " + win() + " " + std::to_string(width_) + " " + std::to_string(height_));
        count("resize");
        break;
      }
      case 10: case 11: {  // a scene from the list, water or gas
        const bool gas = pick(4) == 0;
        const std::string name = gas ? kGasScenes[pick(4)] : kWaterScenes[pick(12)];
        // (Reached first: the panel as the other actions left it hid the list nine times in
        // ten, and an hour made 59 switches of the 100 it asks for.)
        reach_scene_list();
        count(load_scene(name) ? (gas ? "gas scene" : "water scene") : "scene switch missed: " + miss_);
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + pick(300)));
  }

  // Waits until the app has printed one of `lines` after offset `mark` of its output (true),
  // at most `seconds`, or until it exits.
  bool said_since(size_t mark, const std::vector<std::string>& lines, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      const std::string out = app_.output();
      for (const std::string& line : lines)
        if (out.find(line, mark) != std::string::npos) return true;
      if (!app_.running() || std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // What the app allocates once and keeps, made before the first checkpoint so that the
  // checkpoints compare growth rather than first uses: each render mode drawn once (the
  // surface and mesh modes keep their buffers when left: the dam break drawn as spheres,
  // surface and mesh held 147, 179 and 218 MB), and the window at the largest size the
  // resizes reach. Back to spheres at the checkpoints' size after.
  void warm_up() {
    for (int press = 0; press < kRenderModes; ++press) {
      const size_t mark = app_.output().size();
      send("key v");
      said_since(mark, {"tidepool: drawing as "}, 10.0);
      std::this_thread::sleep_for(std::chrono::seconds(2));  // a few frames in that mode
    }
    send("windowsize --sync " + win() + " 1280 1000");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    send("windowsize --sync " + win() + " 1280 900");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    // A scene with bodies and one of gas (the gas mode's shaders, the bodies' meshes), a
    // second of video (the encoder's thread and queue), then back to the dam break.
    for (const char* name : {"floating", "plume", "dam_break"}) {
      reach_scene_list();
      if (!load_scene(name)) std::printf("warm-up: %s not loaded (%s)\n", name, miss_.c_str());
      std::this_thread::sleep_for(std::chrono::seconds(2));
      if (std::string(name) == "floating") {
        const size_t mark = app_.output().size();
        send("key F9");
        std::this_thread::sleep_for(std::chrono::seconds(1));
        send("key F9");
        said_since(mark, {"tidepool: saved video ", "tidepool: video not saved"}, 20.0);
      }
    }
  }
  static constexpr int kRenderModes = 3;  // spheres, surface, mesh (V cycles them)

  // Quits as a person does: Escape. The panel may hold the keyboard when the play ends (a
  // slider a double click turned into a text field, a list open), and then Escape ends
  // that first, as it does for a person; so up to three Escapes, each after the first
  // preceded by a click on the view's top edge, which ends any edit. Returns how many it
  // took (0: the app did not quit).
  int quit() {
    for (int attempt = 1; attempt <= 3; ++attempt) {
      if (attempt > 1) send(point(0.7, 0.02) + " click 1");
      send("windowfocus --sync " + win() + " key Escape");
      if (app_.wait_exit(attempt < 3 ? 15 : 90)) return attempt;
    }
    return 0;
  }

  // Opens the scene list (the panel's "scene" widget) and picks `name`; true when the app
  // said it loaded it. The panel may be hidden or its section closed: then nothing happens.
  // Only what the app printed since the list opened counts (a list of the other kind of
  // scene's panel, left open when that mode ended, was clicked where it had stood), and a
  // click that did not load is tried again where the item stands then, up to three times:
  // at 1154x899 an open list moved 34 pixels in the frame after a click on its item, which
  // then selected nothing.
  bool load_scene(const std::string& name) {
    const Widget combo = widget(app_, "scene");
    if (!combo.found || combo.clipped || combo.x + combo.width > width_ || combo.y + combo.height > height_)
      return miss_ = "the scene list was out of reach", false;
    size_t opened = app_.output().size();
    send(at(w_, combo.cx(), combo.cy()) + " sleep 0.2 click 1");
    const size_t first_open = opened;
    // The scene's own line, whole (a water scene's "NAME (", a gas scene's "NAME:", a switch
    // of kind's "NAME" alone): a prefix took a click that landed on dam_break_2d, the item
    // under dam_break, for the dam break.
    const std::string said = "tidepool: scene " + name;
    const std::vector<std::string> said_loaded = {said + " (", said + ":", said + "\n"};
    const auto loaded = [&] { return said_since(first_open, said_loaded, 0.0); };
    std::vector<std::string> clicks;
    for (int attempt = 0; attempt < 3; ++attempt) {
      // A click that missed may have shut the list (the panel above it moved: a wrapped
      // line of its statistics one more or less, and the item stood 30 pixels higher by
      // the click; an hour missed 2 switches so): open it again where the list stands now.
      if (attempt > 0 && !widget(app_, "scene:" + name, opened).found) {
        const Widget again = widget(app_, "scene");
        if (!again.found || again.clipped || again.y + again.height > height_) break;
        opened = app_.output().size();
        send(at(w_, again.cx(), again.cy()) + " sleep 0.2 click 1");
      }
      // The list open: its item drawn (at most 3 s; at a few frames a second, as in an hour
      // beside a CI run, a fixed half second missed it and 426 switches were given up).
      Widget item;
      for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
           std::chrono::steady_clock::now() < until && !item.found && app_.running() && !loaded();) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        item = widget(app_, "scene:" + name, opened);
      }
      if (loaded()) return true;  // (a late click took)
      // The list may need scrolling to the item: the wheel over it, towards the item. Over
      // the list where the app says it stands: a fixed place under the combo missed a list
      // that opened above it, in a short window (seed 677174717: no scene in 2 minutes).
      for (int k = 0; k < 12 && item.found && item.clipped; ++k) {
        const size_t mark = app_.output().size();
        const Widget list = widget(app_, "scene list", opened);
        const int wheel_y = list.found ? list.cy() : combo.y + combo.height + 80;
        send(at(w_, list.found ? list.cx() : combo.cx(), wheel_y) + " click " + (item.y < wheel_y ? "4" : "5"));
        said_since(mark, {"tidepool: widget 'scene:" + name + "' "}, 2.0);  // (drawn elsewhere)
        item = widget(app_, "scene:" + name, opened);
      }
      if (!item.found || item.clipped) {
        if (attempt > 0) break;  // (the list shut after a click: say what the clicks met)
        send(point(0.7, 0.05) + " click 1");  // closes the list
        return miss_ = item.found ? "the scene's item stayed scrolled out of the list"
                                  : "the list did not open (clicked at " + std::to_string(combo.cx()) + "," +
                                        std::to_string(combo.cy()) + ")",
               false;
      }
      // Where it stands a moment later (a list that moved since it was first read).
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      if (const Widget now = widget(app_, "scene:" + name, opened); now.found && !now.clipped) item = now;
      clicks.push_back(std::to_string(item.cx()) + "," + std::to_string(item.cy()));
      send(at(w_, item.cx(), item.cy()) + " sleep 0.2 click 1");
      if (said_since(first_open, said_loaded, attempt < 2 ? 4.0 : 10.0)) {
        if (attempt > 0) count("scene switch: the item clicked again");
        return true;
      }
    }
    if (widget(app_, "scene:" + name, opened).found) send(point(0.7, 0.05) + " click 1");  // closes the list
    miss_ = "the app did not load the scene when its item was clicked";
    // What the app said from the list's opening on (its lines other than the widgets' places,
    // and those of the list), with where the clicks went: the reason a CI log can show.
    std::printf("missed %s: clicked the list at %d,%d, its item at", name.c_str(), combo.cx(), combo.cy());
    for (const std::string& c : clicks) std::printf(" %s", c.c_str());
    std::printf(" in a %dx%d window; the app said from the first click on:\n", width_, height_);
    print_said_since(first_open);
    return false;
  }
  // The app's lines from offset `mark` on, up to 60, but the places of widgets other than
  // the scene list's and the panel's.
  void print_said_since(size_t mark) const {
    const std::string all = app_.output();
    int shown = 0;
    for (size_t a = mark, b; a < all.size() && shown < 60; a = b + 1) {
      b = all.find('\n', a);
      if (b == std::string::npos) b = all.size();
      const std::string line = all.substr(a, b - a);
      if (line.rfind("tidepool: widget '", 0) == 0 && line.rfind("tidepool: widget 'scene", 0) != 0 &&
          line.rfind("tidepool: widget 'panel", 0) != 0)
        continue;
      std::printf("  | %s\n", line.c_str());
      ++shown;
    }
  }
  std::string miss_;  ///< why the last load_scene failed

  bool in_gas() const {
    const std::string out = app_.output();
    size_t last_water = std::string::npos, last_gas = std::string::npos;
    for (const char* s : kGasScenes) {
      const size_t at = out.rfind(std::string("tidepool: scene ") + s);
      if (at != std::string::npos && (last_gas == std::string::npos || at > last_gas)) last_gas = at;
    }
    for (const char* s : kWaterScenes) {
      const size_t at = out.rfind(std::string("tidepool: scene ") + s + " (");
      if (at != std::string::npos && (last_water == std::string::npos || at > last_water)) last_water = at;
    }
    return last_gas != std::string::npos && (last_water == std::string::npos || last_gas > last_water);
  }

  // The session recorder runs throughout: F8 again when a session has ended (a panel
  // click on its button, a switch to a gas scene and back).
  void keep_recording() {
    const std::string out = app_.output();
    const int started = count_of(out, "tidepool: recording session ");
    const int ended = count_of(out, "tidepool: saved session ") + count_of(out, "tidepool: no session");
    if (started <= ended && !in_gas()) {
      send("key F8");
      count("F8 (the session again)");
    }
  }

  struct Checkpoint {
    double at = 0.0;
    long rss_kb = 0;                        ///< the median of the readings
    long rss_low_kb = 0, rss_high_kb = 0;   ///< their least and most
    ResidentParts parts;
    double fps = 0.0;
    long particles = 0;
    // The reset's trim, which the app makes with no frame in flight (its "trimmed (settled):"
    // line): the resident size then, and malloc's account of it (in use in its arenas, in
    // mapped blocks, held free); negative when the app did not say.
    double settled_mb = -1.0, in_use_mb = -1.0, mapped_mb = -1.0, free_mb = -1.0;
  };
  // Brings the scene list within reach, as a person would before picking a scene: the panel
  // shown (Tab), expanded (its title's arrow), its Simulation section open, scrolled to the
  // top.
  void reach_scene_list() {
    for (int attempt = 0; attempt < 6; ++attempt) {
      const Widget combo = widget(app_, "scene");
      if (combo.found && !combo.clipped && combo.y + combo.height < height_) break;
      const Widget section = widget(app_, "section Simulation");
      const size_t mark = app_.output().size();
      // The panel's scroll: down when the list lies below the window's bottom or is clipped
      // there (a short window with the statistics open: at its top the panel stays as it
      // is, and a 2-minute run in CI missed all four of its scene switches so), else to the
      // top.
      const bool below = combo.found && (combo.clipped || combo.y + combo.height >= height_) && combo.y > height_ / 2;
      if (section.found && !section.clipped && !combo.found) send(at(w_, section.cx(), section.cy()) + " click 1");
      else if (section.found) send(at(w_, 200, 300) + (below ? " click --repeat 3 5" : " click --repeat 10 4"));
      else if (attempt % 2 == 0) send("key Tab");
      else send(at(w_, 19, 19) + " click 1");
      // Until the app has drawn the panel as the action left it (a line about either widget
      // after the action), at most 3 s: at 7 frames/s (the hour beside a CI run) a fixed
      // 0.6 s read the panel before the click had shown, so the next attempt clicked the
      // section shut again, and three checkpoints in four were skipped.
      said_since(mark, {"tidepool: widget 'scene' ", "tidepool: widget 'section Simulation' "}, 3.0);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  }

  // The dam break from the scene list at 1280x900, running, settled: memory and frames/s.
  // On failure *why says which step failed.
  bool checkpoint(double when, Checkpoint* c, std::string* why) {
    width_ = 1280;
    height_ = 900;
    send("windowsize --sync " + win() + " 1280 900");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    reach_scene_list();
    // The same state at every checkpoint, so that they compare memory rather than what the
    // monkey left (the surface and mesh modes hold their buffers: the dam break drawn as
    // spheres, surface and mesh took 147, 179 and 218 MB): the realtime quality (which
    // sets the dam break's particle count), the dam break, drawn as spheres.
    const Widget quality = widget(app_, "quality");
    if (quality.found && !quality.clipped) {
      send(at(w_, quality.cx(), quality.cy()) + " sleep 0.2 click 1");
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      const Widget realtime = widget(app_, "quality:realtime");
      if (realtime.found && !realtime.clipped) send(at(w_, realtime.cx(), realtime.cy()) + " sleep 0.2 click 1");
      else send(point(0.7, 0.05) + " click 1");  // (closes the list)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    // No video being recorded (F9 again): its queue of frames for the encoder (12 frames,
    // 21 MB at 1280x900) held at one checkpoint and not at the next moved the resident size
    // by as much.
    if (const std::string out = app_.output(); count_of(out, "tidepool: recording video ") >
                                               count_of(out, "tidepool: saved video ") +
                                                   count_of(out, "tidepool: video not saved")) {
      send("key F9");
      said_since(out.size(), {"tidepool: saved video ", "tidepool: video not saved"}, 20.0);
    }
    // Up to four tries, each reaching the list again after a pause: a checkpoint the
    // monkey came to in a gas scene once found the list shut to two clicks in a row ("the
    // list did not open": the panel it read had moved under the resize above, or a frame
    // at 1280x900 had not been drawn yet) and a 2-minute run had one checkpoint of two.
    std::string misses;
    bool loaded = false;
    for (int attempt = 0; attempt < 4 && !loaded && app_.running(); ++attempt) {
      if (attempt > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        reach_scene_list();
      }
      loaded = load_scene("dam_break");
      if (!loaded) misses += (misses.empty() ? "" : "; ") + miss_;
    }
    if (!loaded) {
      // What the window showed: the reason a CI log cannot tell.
      FrameWatcher look(w_, WindowRect{0, 0, width_, height_});
      if (look.ok()) {
        // (test_dir() empties the folder: the path is made here)
        const std::string png = test_dir_path() + "/work/checkpoint_missed_" + std::to_string(int(when)) + ".png";
        save_png(grab_window(look, width_, height_), png);
        misses += " (the window: " + png + ")";
      }
      return *why = misses, false;
    }
    if (!misses.empty()) count("checkpoint: the dam break loaded after " + misses);
    // PBF, the realtime quality's solver (the solver stays across scenes, and each runs at
    // its own frame rate); with the pointer in the view (over the panel, where the scene was
    // just picked, digits are left to its fields).
    send(point(0.75, 0.5) + " sleep 0.2");
    send("windowfocus --sync " + win() + " key 3");
    // V until the water is drawn as spheres (the app says how it draws at the start of a
    // water scene and at each change).
    for (int press = 0; press < 3; ++press) {
      const std::string out = app_.output();
      const size_t last = out.rfind("tidepool: drawing as ");
      if (last != std::string::npos && out.compare(last, 28, "tidepool: drawing as spheres") == 0) break;
      send("key v");
      said_since(out.size(), {"tidepool: drawing as "}, 5.0);
    }
    {
      const std::string out = app_.output();
      const size_t last = out.rfind("tidepool: drawing as ");
      if (last == std::string::npos || out.compare(last, 28, "tidepool: drawing as spheres") != 0)
        return *why = "V did not bring back the spheres", false;
    }
    FrameWatcher frames(w_, WindowRect{420, 150, 820, 500});
    if (!frames.ok()) return *why = "the window could not be read", false;
    if (frames.wait_changes(100000, 2.0) < 6) send("key space");  // paused: run
    std::this_thread::sleep_for(std::chrono::seconds(3));
    c->at = when;
    c->fps = frames.wait_changes(100000, 4.0) / 4.0;
    // The memory at one state: the dam break paused and reset to its start (the same
    // particles, no spray yet): the app's settled trim a second after the reset, then the
    // median of five readings half a second apart (printed beside it). Then running again.
    const size_t before_reset = app_.output().size();
    send("windowfocus --sync " + win() + " key space key r");
    if (!said_since(before_reset, {"tidepool: trimmed (settled): "}, 5.0))
      std::printf("checkpoint at %.0f s: the app did not say its settled memory within 5 s\n", when);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::vector<std::pair<long, ResidentParts>> readings;
    for (int k = 0; k < 5; ++k) {
      if (k > 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
      readings.emplace_back(resident_kb(app_.pid()), resident_parts(app_.pid()));
    }
    std::sort(readings.begin(), readings.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    c->rss_kb = readings[2].first;
    c->parts = readings[2].second;
    c->rss_low_kb = readings.front().first;
    c->rss_high_kb = readings.back().first;
    send("windowfocus --sync " + win() + " key space");
    // TP_MONKEY_SMAPS=DIR keeps each checkpoint's whole map, to compare mapping by mapping.
    // (malloc_stats called through gdb at a checkpoint hung the app once: a thread held an
    // arena's lock. A heap profiler's launcher and a kill after a checkpoint say more.)
    if (const char* dir = std::getenv("TP_MONKEY_SMAPS"))
      run_command("cp /proc/" + std::to_string(app_.pid()) + "/smaps " + dir + "/smaps_" + std::to_string(int(when)) +
                  ".txt");
    {  // malloc's account at the reset's trim
      const std::string out = app_.output();
      const std::string settled = "tidepool: trimmed (settled): ";
      const size_t at = out.find(settled, before_reset);
      double before = 0.0;
      if (at != std::string::npos &&
          std::sscanf(out.c_str() + at + settled.size(),
                      "%lf MB resident (%lf before); malloc: %lf MB in use in its arenas, %lf MB in mapped blocks, "
                      "%lf MB held free", &c->settled_mb, &before, &c->in_use_mb, &c->mapped_mb, &c->free_mb) < 1)
        c->settled_mb = -1.0;
    }
    {  // the dam break's particle count (measured at each load for real time)
      const std::string out = app_.output();
      const size_t at = out.rfind("tidepool: scene dam_break (");
      const size_t colon = at == std::string::npos ? at : out.find("): ", at);
      if (colon != std::string::npos) c->particles = std::atol(out.c_str() + colon + 3);
    }
    return true;
  }

 private:
  RunningApp& app_;
  unsigned long w_;
  std::mt19937 rng_;
  double scene_share_;
  int width_ = 1280, height_ = 900;
  std::map<std::string, int> counts_;

 public:
  std::map<int, double> seconds_;  // wall time per kind of action (act's switch), for the log
};

}  // namespace

TEST(Window, AMonkeyPlaysWithoutAFault) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const char* seconds_env = std::getenv("TP_MONKEY_SECONDS");
  const double seconds = seconds_env ? std::atof(seconds_env) : 120.0;
  const char* seed_env = std::getenv("TP_MONKEY_SEED");
  const uint32_t seed = seed_env ? uint32_t(std::strtoul(seed_env, nullptr, 10)) : std::random_device{}();
  const bool hour = seconds >= 1800.0;
  std::printf("the monkey plays for %.0f s, seed %u (TP_MONKEY_SEED=%u repeats it)\n", seconds, seed, seed);
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  // TP_MONKEY_LAUNCHER: a command put before the app that execs it (so the pid stays the
  // app's), e.g. a heap profiler's wrapper when the memory is to be explained.
  const char* launcher_env = std::getenv("TP_MONKEY_LAUNCHER");
  // llvmpipe rasterizes on the app's thread (LP_NUM_THREADS=0) unless the environment says
  // otherwise. With its rasterizer threads, llvmpipe keeps up to 64 "scenes" (binned frames),
  // makes a new one whenever those it has are all still being rasterized, and empties one only
  // when it takes it again (lp_setup.c): what the scenes the last frames did not reach still
  // hold (their binned triangles, textures the app deleted) depends on the timing of frames
  // long gone. That swung the settled checkpoints of an hour from 154 to 188 MB, and the
  // hour failed its 5 % on it (docs/testing.md, 2026-12-07). Rasterized synchronously,
  // llvmpipe has one scene, emptied at every flush: the checkpoints read the app.
  const char* lp_threads = std::getenv("LP_NUM_THREADS");
  const std::string driver = " LP_NUM_THREADS=" + std::string(lp_threads ? lp_threads : "0");
  RunningApp app("--scene dam_break --size 1280x900 --frames 1000000000 --gl-check", work + "/app.log", work,
                 kWidgetLog + driver + (launcher_env ? " " + std::string(launcher_env) : std::string()));
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  send("windowfocus --sync " + std::to_string(w) + " key F8");
  ASSERT_TRUE(wait_for_output(app, "tidepool: recording session ")) << app.output();

  // A scene switch takes seconds: 1 action in 24 in the short run; in the long one 1 in 12,
  // so that an hour makes 100 of them (a 30-minute run with 1 in 24 made 18 water scenes).
  Monkey monkey(app, w, seed, hour ? 1.0 / 12.0 : 1.0 / 24.0);
  monkey.warm_up();
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  // Checkpoints: after the first minute, then every 5 minutes (the hour) or at the end.
  std::vector<double> due = {60.0};
  // (TP_MONKEY_EVERY=S makes them every S seconds, to study the memory in a shorter run.)
  const double every = std::getenv("TP_MONKEY_EVERY") ? std::max(30.0, std::atof(std::getenv("TP_MONKEY_EVERY"))) : 300.0;
  for (double t = 60.0 + every; t < seconds - 30.0; t += every) due.push_back(t);
  std::vector<Monkey::Checkpoint> checkpoints;
  double next_chores = 15.0;
  size_t next_due = 0;
  while (elapsed() < seconds && app.running()) {
    if (next_due < due.size() && elapsed() >= due[next_due]) {
      Monkey::Checkpoint c;
      std::string why;
      const bool made = monkey.checkpoint(elapsed(), &c, &why);
      std::printf("checkpoint at %.0f s: %s\n", elapsed(),
                  made ? (std::to_string(c.rss_kb / 1024) + " MB resident, " + std::to_string(c.fps) + " frames/s").c_str()
                       : (why + "; skipped").c_str());
      if (made) checkpoints.push_back(c);
      ++next_due;
      continue;
    }
    if (elapsed() >= next_chores) {
      next_chores += 15.0;
      monkey.keep_recording();
      // Recordings the monkey started with the panel's Record (PLY frames) fill the disk
      // in an hour: what is over 1 GB goes.
      const ProcessResult du = run_command("du -sm '" + work + "' | cut -f1");
      if (std::atoi(du.output.c_str()) > 1024)
        run_command("find '" + work + "' -name '*.ply' -delete; find '" + work + "' -name '*.mp4' -delete");
    }
    monkey.act();
  }
  ASSERT_TRUE(app.running()) << "the app ended under the monkey (seed " << seed << "):\n"
                             << app.output().substr(app.output().size() > 6000 ? app.output().size() - 6000 : 0);
  Monkey::Checkpoint last;
  std::string why_last;
  if (monkey.checkpoint(elapsed(), &last, &why_last)) checkpoints.push_back(last);
  else std::printf("the last checkpoint: %s; skipped\n", why_last.c_str());
  const int escapes = monkey.quit();
  ASSERT_GT(escapes, 0) << "three Escapes did not quit within 120 s:\n"
                        << app.output().substr(app.output().size() > 3000 ? app.output().size() - 3000 : 0);
  std::printf("quit with %d Escape%s\n", escapes, escapes > 1 ? "s (the first ended an edit)" : "");
  const std::string out = app.output();
  EXPECT_EQ(app.exit_code(), 0) << out.substr(out.size() > 6000 ? out.size() - 6000 : 0);

  std::printf("actions (%.0f s, seed %u):\n", seconds, seed);
  int total = 0;
  for (const auto& [kind, n] : monkey.counts()) {
    std::printf("  %6d  %s\n", n, kind.c_str());
    total += n;
  }
  std::printf("  %6d  in all\n", total);
  for (const auto& [kind, secs] : monkey.seconds_) std::printf("  kind %d: %.1f s\n", kind, secs);
  for (const Monkey::Checkpoint& c : checkpoints)
    std::printf("checkpoint at %5.0f s: %6.1f MB resident settled; read after %6.1f MB (%.1f to %.1f; heap %.1f, "
                "anonymous %.1f, files %.1f), %5.1f frames/s, %ld particles; malloc %.1f MB in use, %.1f mapped, "
                "%.1f free\n", c.at, c.settled_mb, c.rss_kb / 1024.0, c.rss_low_kb / 1024.0, c.rss_high_kb / 1024.0, c.parts.heap_kb / 1024.0,
                c.parts.anon_kb / 1024.0, c.parts.file_kb / 1024.0, c.fps, c.particles, c.in_use_mb, c.mapped_mb,
                c.free_mb);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(particles at exit: (\d+) outside the tank, (\d+) not finite)")))
      << "no check at exit (did it end in a gas scene? it loads the dam break at the end)\n" << out.substr(out.size() > 3000 ? out.size() - 3000 : 0);
  std::printf("%s\n", m[0].str().c_str());
  EXPECT_EQ(m[1], "0") << "particles outside the tank";
  EXPECT_EQ(m[2], "0") << "particles not finite";
  EXPECT_EQ(out.find("GL error 0x"), std::string::npos) << "an OpenGL error (see app.log)";
  EXPECT_NE(out.find("--gl-check: no OpenGL errors"), std::string::npos);
  EXPECT_EQ(out.find("tidepool: the NaN guard: "), std::string::npos) << "the NaN guard spoke (see app.log)";
  EXPECT_NE(out.find("the NaN guard threw away 0 particle states"), std::string::npos);
  EXPECT_GE(count_of(out, "tidepool: recording session "), 1);
  EXPECT_GE(total, int(seconds / 3.0)) << "actions in all";
  const int minimum = hour ? 100 : 1;
  for (const char* kind : {"water drag", "ctrl drag (bodies, obstacles)", "orbit", "pan", "wheel", "panel click",
                           "panel drag to an end", "resize", "water scene"})
    EXPECT_GE(monkey.counts().count(kind) ? monkey.counts().at(kind) : 0, minimum) << kind;
  ASSERT_GE(checkpoints.size(), 2u) << "the checkpoints could not load the dam break";
  // The memory: each checkpoint's settled resident size (the reset's trim with no frame in
  // flight). One reading swings by about 10 % at the same state (2026-12-07, an 8-minute run:
  // 158 to 193 MB at eight checkpoints, while every block the app itself held was the same
  // at each, by an allocation tracker; what moved was the driver's: llvmpipe's binned
  // frames and textures, and the shared libraries' resident pages; docs/testing.md). So
  // "flat" is read as no growth: the median of the last third of the checkpoints within 5 %
  // of the first third's (the hour), and no single checkpoint beyond 20 % of the first
  // third's. The 2-minute run has one checkpoint a third and catches a gross leak: 50 %.
  // (All settled or none: a reading with frames in flight is 10 to 20 MB higher.)
  const bool settled = std::all_of(checkpoints.begin(), checkpoints.end(),
                                   [](const Monkey::Checkpoint& c) { return c.settled_mb > 0.0; });
  if (!settled) std::printf("not every checkpoint read its settled memory: comparing the readings after them\n");
  const auto compared_mb = [&](const Monkey::Checkpoint& c) { return settled ? c.settled_mb : c.rss_kb / 1024.0; };
  const size_t thirds = std::max<size_t>(1, checkpoints.size() / 3);
  const auto median_mb = [&](size_t from) {
    std::vector<double> v;
    for (size_t k = from; k < from + thirds; ++k) v.push_back(compared_mb(checkpoints[k]));
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  const double first_mb = median_mb(0), last_mb = median_mb(checkpoints.size() - thirds);
  std::printf("resident memory, settled: the first third's median %.1f MB, the last third's %.1f MB (%+.1f %%)\n",
              first_mb, last_mb, 100.0 * (last_mb / first_mb - 1.0));
  EXPECT_LE(last_mb, (hour ? 1.05 : 1.5) * first_mb)
      << "the resident memory grew: the last third of the checkpoints against the first third";
  for (const Monkey::Checkpoint& c : checkpoints)
    EXPECT_LE(compared_mb(c), (hour ? 1.2 : 1.5) * first_mb)
        << "resident memory at " << c.at << " s against the first third of the checkpoints' median";
  // Frames a second: the last third of the checkpoints against the first (the monkey's
  // settings persist across scenes, so only a fall by half is called a drift).
  double early = 0.0, late = 0.0;
  const size_t third = std::max<size_t>(1, checkpoints.size() / 3);
  for (size_t k = 0; k < third; ++k) {
    early += checkpoints[k].fps / double(third);
    late += checkpoints[checkpoints.size() - 1 - k].fps / double(third);
  }
  std::printf("frames/s: %.1f early, %.1f late\n", early, late);
  EXPECT_GE(late, 0.5 * early) << "the frame rate drifted down";
  // And a window that answers at all: a run whose monkey had reset the plume at 256 cells
  // (1.9 GB, 5.4 s a frame) passed both checks above at 0 frames/s at every checkpoint.
  for (const Monkey::Checkpoint& c : checkpoints)
    EXPECT_GE(c.fps, 2.0) << "the dam break at the checkpoint at " << c.at << " s drew " << c.fps
                          << " frames/s, at " << c.rss_kb / 1024 << " MB resident";
}

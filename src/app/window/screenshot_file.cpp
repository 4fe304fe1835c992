#include "app/window/screenshot_file.h"

#include <filesystem>
#include <system_error>

namespace tp {

std::string screenshot_file_name(const std::tm& local_time, int copy, const std::string& extension) {
  char stamp[32];
  if (std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local_time) == 0) stamp[0] = '\0';
  std::string name = std::string("tidepool-") + stamp;
  if (copy > 1) name += "-" + std::to_string(copy);
  return name + extension;
}

std::string free_screenshot_path(const std::string& directory, std::time_t now, const std::string& extension) {
  std::tm local{};
  localtime_r(&now, &local);
  const std::string prefix =
      directory.empty() || directory.back() == '/' ? directory : directory + "/";
  for (int copy = 1;; ++copy) {
    const std::string path = prefix + screenshot_file_name(local, copy, extension);
    std::error_code error;
    // symlink_status: a dangling link counts as taken, since writing would follow it.
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, error)) &&
        !std::filesystem::exists(std::filesystem::symlink_status(path + ".part", error)))
      return path;
  }
}

}  // namespace tp

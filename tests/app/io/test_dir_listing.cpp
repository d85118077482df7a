// list_dir, what the window's file pickers show: folders ("..", then by name) and the files with
// the wanted endings in any case, hidden entries left out, and an unreadable folder said in words.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "app/io/dir_listing.h"
#include "test_files.h"

namespace {

void touch(const std::string& p) { std::ofstream(p) << "x"; }

TEST(DirListing, FoldersThenMatchingFilesByName) {
  const std::string dir = ds::test::make_tmpdir("dir-listing");
  ASSERT_EQ(mkdir((dir + "/zeta").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir + "/alpha").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir + "/.hidden").c_str(), 0755), 0);
  for (const char* f : {"b.glsl", "a.GLSL", "c.kfp", "notes.txt", ".secret.glsl", "glsl"}) touch(dir + "/" + f);
  const ds::app::DirListing l = ds::app::list_dir(dir + "/alpha/..", {".glsl"});
  EXPECT_TRUE(l.error.empty()) << l.error;
  EXPECT_EQ(l.dir.find(".."), std::string::npos) << l.dir;  // resolved
  EXPECT_EQ(l.folders, (std::vector<std::string>{"..", "alpha", "zeta"}));
  EXPECT_EQ(l.files, (std::vector<std::string>{"a.GLSL", "b.glsl"}));
  const ds::app::DirListing k = ds::app::list_dir(dir, {".kfp", ".kfr"});
  EXPECT_EQ(k.files, (std::vector<std::string>{"c.kfp"}));
  const ds::app::DirListing all = ds::app::list_dir(dir, {});
  EXPECT_EQ(all.files.size(), 5u);  // every file but the hidden one
}

TEST(DirListing, AMissingFolderIsSaidNotThrown) {
  const ds::app::DirListing l = ds::app::list_dir("/no/such/folder/here", {".glsl"});
  EXPECT_FALSE(l.error.empty());
  EXPECT_NE(l.error.find("/no/such/folder/here"), std::string::npos) << l.error;
  EXPECT_TRUE(l.files.empty());
}

TEST(DirListing, TheRootHasNoParentEntry) {
  const ds::app::DirListing l = ds::app::list_dir("/", {});
  EXPECT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(l.folders.empty() || l.folders.front() != "..");
}

}  // namespace

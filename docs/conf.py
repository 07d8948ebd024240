# Sphinx configuration of the manual: the HTML pages, the man pages (the
# same sources, Sphinx's man builder) and the C API reference (Doxygen's XML
# of the public headers, rendered by Breathe). Built by the `docs` target
# of the CMake build (docs/CMakeLists.txt), warnings as errors.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "man"))
import families  # noqa: E402  (the man pages and the names they answer to)

project = "DART runtime"
author = "the DART runtime's authors"
copyright = "the DART runtime's authors"
version = release = os.environ.get("DART_DOCS_VERSION", "")

extensions = ["myst_parser", "breathe"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "tools", "man/families.py", "doxygen"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
nitpicky = False

# The XML directory comes from the build (-D breathe_projects.dart=...).
breathe_projects = {}
breathe_default_project = "dart"
breathe_domain_by_extension = {"h": "c"}
breathe_default_members = ()
# Attributes of the public headers, spelled out so that Sphinx's C parser
# reads the declarations Doxygen hands over.
c_id_attributes = ["DART_NOTHROW", "REGISTRY_C_API", "PMIXSHIM_EXPORT"]
c_paren_attributes = ["__attribute__"]

html_theme = "alabaster"
html_static_path = []
html_theme_options = {"nosidebar": False}

man_pages = []
for page, section, summary, _names, _patterns in families.FAMILIES:
    man_pages.append((f"man/man{section}/{page}", page, summary, [], section))
for source, name, summary in families.TOOLS:
    if os.path.exists(os.path.join(os.path.dirname(__file__), source + ".md")):
        man_pages.append((source, name, summary, [], 1))
doc, name, section, summary = families.ENVIRONMENT_PAGE
man_pages.append((doc, name, summary, [], section))
man_show_urls = False
man_make_section_directory = True

# Pages checked against what they describe (tests/docs/).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME docs.source_layout
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/source_layout.py
                   ${PROJECT_SOURCE_DIR})
  # Every relative link of the pages leads to a file, and to a heading of it.
  add_test(NAME docs.links
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/links.py
                   ${PROJECT_SOURCE_DIR})
endif()

# Every block of program output in README.md, docs/ and the manual pages is
# what its command prints now (tests/docs/excerpts.py; after a change of a
# format, `tests/docs/excerpts.py --build BUILD --update` rewrites them).
# The commands use bash, jq and Wireshark's editcap.
if(TARGET ibscope AND TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME docs.excerpts
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/excerpts.py
                   --build ${CMAKE_BINARY_DIR} --source-dir ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs.excerpts PROPERTIES TIMEOUT 600)
endif()

# The lists the docs keep by hand (options, formats, CSV columns, CMake
# options) against the program's --help, its CSV header and the CMake files
# (tests/docs/lists.py).
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  add_test(NAME docs.lists
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/lists.py
                   --build ${CMAKE_BINARY_DIR} --source-dir ${PROJECT_SOURCE_DIR})
endif()

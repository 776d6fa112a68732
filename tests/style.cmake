# House rules checked on the source tree (tests/style/).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # No function over 80 lines, the generator and the tests included.
  add_test(NAME style.function_length
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/function_length.py
                   ${PROJECT_SOURCE_DIR})
  # Every .c and .h as .clang-format lays it out (with clang-format 14, which
  # the layout is set with; skipped with another version or none).
  add_test(NAME style.format
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/format_check.py
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(style.format PROPERTIES SKIP_RETURN_CODE 77)
endif()

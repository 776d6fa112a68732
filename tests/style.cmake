# House rules checked on the source tree (tests/style/).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # No function over 80 lines, the generator and the tests included.
  add_test(NAME style.function_length
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/function_length.py
                   ${PROJECT_SOURCE_DIR})
endif()

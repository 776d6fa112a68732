# ibscope-gen's output errors: each one said in one line, exit 2
# (tests/gen/test_outputs.py).
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME gen.outputs
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gen/test_outputs.py
                   $<TARGET_FILE:ibscope-gen>)
endif()

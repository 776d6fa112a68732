# ibscope-gen's output errors: each one said in one line, exit 2
# (tests/gen/test_outputs.py).
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME gen.outputs
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gen/test_outputs.py
                   $<TARGET_FILE:ibscope-gen>)
endif()

# ibscope-gen cm-kernel (tests/gen/test_cm_kernel.py): two runs byte-identical,
# --list, truth.tsv complete, and its numbers borne out by the frames as
# tshark reads them (without ibscope).
if(TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME gen.cm_kernel
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gen/test_cm_kernel.py
                   $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(gen.cm_kernel PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# ibscope-gen rc (tests/gen/test_rc.py): on both link types, two runs
# byte-identical, --list, truth.tsv complete, its findings borne out by the
# frames as tshark reads them, and every frame's CRCs right.
if(TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME gen.rc
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gen/test_rc.py
                   $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(gen.rc PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# ibscope-gen rc-bulk (tests/gen/test_rc_bulk.py): on both link types, two
# runs byte-identical, the frames and queue pairs asked for, every ICRC
# right, the PSNs as tshark reads them walking on (with --loss, one gap, one
# NAK and go-back-N per request lost), and no transport finding from ibscope
# without loss.
if(TARGET ibscope-gen AND TARGET ibscope AND Python3_Interpreter_FOUND)
  add_test(NAME gen.rc_bulk
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gen/test_rc_bulk.py
                   $<TARGET_FILE:ibscope-gen> --ibscope $<TARGET_FILE:ibscope>)
  set_tests_properties(gen.rc_bulk PROPERTIES TIMEOUT 300)
endif()

# ibscope-gen wire (tests/gen/test_wire.py): on both link types, two runs
# byte-identical, --list, truth.tsv complete, and its rows exactly what the
# wire contract's rules (samples/gen/wire_contract.md) give on the frames as
# tshark reads them; every ICRC and VCRC right.
if(TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME gen.wire
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gen/test_wire.py
                   $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(gen.wire PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

"""Operations that span wings, above scan: test_rule, suggest_rule, apply_fixes, server_info/doctor."""

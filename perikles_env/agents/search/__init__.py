"""Search guided by a policy/value network (IS-MCTS with PUCT on the C++ core)."""

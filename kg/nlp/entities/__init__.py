"""Entity recognition: where mentions may be (candidates), how each is typed or rejected
(the classifier over phrase features), what a paper proposes, and each entity's
confidence."""

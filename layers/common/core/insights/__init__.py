"""Insights: what the chat's turns leave behind for their owner (receipts, day counters, questions, unanswered
rows) and what is read and rated from it (docs/data-model.md, docs/decisions.md "Insights counted by the turn")."""

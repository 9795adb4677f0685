"""Tournaments as checkable as matches (docs/tournaments.md): the event log's primitives, the
pairings (round-robin Berger tables and the fairdeal Swiss), the standings with their
tie-breaks, and the verification of a whole tournament export. Pure, as the rest of verifier/.
"""

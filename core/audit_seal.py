"""STUB (dropped at merge): the real module is written by another engineer."""


def latest_seal():
    return None

from collections.abc import Callable
from typing import TypeVar

from django import forms
from django.http import HttpRequest

from core.errors import DomainError

T = TypeVar("T")


def submit(request: HttpRequest, form: forms.Form, action: Callable[[], T]) -> T | None:
    """The one shape of every form page: on a valid POST run the service call and return its
    result; a rule's refusal (DomainError) is shown on the form and None returned."""
    if request.method != "POST" or not form.is_valid():
        return None
    try:
        return action()
    except DomainError as error:
        form.add_error(None, error.message)
        return None

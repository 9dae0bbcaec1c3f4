from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render

from core.audit import Actor
from core.errors import DomainError
from core.forms import submit
from members.staff import staff_act_refusal
from promotions import draw_links, services
from promotions.forms import EarningRuleForm, PromotionForm, SeriesForm
from promotions.models import DrawSeries, EarningRule, Promotion
from promotions.rule_words import period_sentence, series_rule_in_words


@permission_required("promotions.view_promotion", raise_exception=True)
def promotion_list(request):
    promotions = list(
        Promotion.objects.prefetch_related("properties")
        .annotate(series_count=Count("series", distinct=True))
        .order_by("-starts_on")
    )
    # The draws are counted by draws (promotions.draw_links): promotions sits below it.
    series_of = list(DrawSeries.objects.filter(promotion__in=promotions).values_list("pk", "promotion_id"))
    counts = draw_links.draw_counts(pk for pk, _ in series_of)
    for promotion in promotions:
        promotion.draw_count = sum(counts.get(pk, 0) for pk, owner in series_of if owner == promotion.pk)
    return render(request, "promotions/list.html", {"promotions": promotions})


@permission_required("promotions.view_promotion", raise_exception=True)
def promotion_detail(request, promotion_id: int):
    promotion = get_object_or_404(Promotion.objects.prefetch_related("properties"), pk=promotion_id)
    series = list(promotion.series.select_related("property", "rule").prefetch_related("eligible_tiers"))
    counts = draw_links.draw_counts(s.pk for s in series)
    for one in series:
        one.draw_count = counts.get(one.pk, 0)
    user = request.user
    rows = [SeriesRow(s, _rule_lines(s), staff_act_refusal(user, s.property)) for s in series]
    # A manager sets up only what is at their properties (members.staff; the services refuse the rest).
    here = [p for p in promotion.properties.all() if staff_act_refusal(user, p) is None]
    context = {
        "promotion": promotion,
        "series_rows": rows,
        "may_edit": len(here) == len(promotion.properties.all()),
        "may_add_series": bool(here),
    }
    return render(request, "promotions/detail.html", context)


@dataclass(frozen=True)
class SeriesRow:
    series: DrawSeries
    rule_lines: list[str]  # the earning rule in words, or why it cannot be read
    elsewhere: str | None = None  # why the user may not change it or schedule its draws, or None


def _rule_lines(series: DrawSeries) -> list[str]:
    if not hasattr(series, "rule"):
        return ["No earning rule yet."]
    try:
        lines = series_rule_in_words(series, list(series.eligible_tiers.all()))
    except DomainError as error:  # an unreadable rule: this series says so, the page still opens
        return [error.message]
    if series.rule.equal_opportunity_tickets is None:
        lines.insert(0, period_sentence(series.rule))
    return lines


@permission_required("promotions.add_promotion", raise_exception=True)
def promotion_new(request):
    return _promotion_form(request, Promotion())


@permission_required("promotions.change_promotion", raise_exception=True)
def promotion_edit(request, promotion_id: int):
    return _promotion_form(request, get_object_or_404(Promotion, pk=promotion_id))


def _promotion_form(request, promotion: Promotion):
    form = PromotionForm(request.POST or None, instance=promotion)
    saved = submit(
        request,
        form,
        lambda: services.promotion_save(
            actor=Actor.from_request(request),
            promotion=form.save(commit=False),
            properties=form.cleaned_data["properties"],
        ),
    )
    if saved:
        messages.success(request, f"{saved.name} saved.")
        return redirect("promotions:detail", promotion_id=saved.pk)
    return render(request, "promotions/form.html", {"form": form, "promotion": promotion})


@permission_required("promotions.add_drawseries", raise_exception=True)
def series_new(request, promotion_id: int):
    promotion = get_object_or_404(Promotion, pk=promotion_id)
    return _series_form(request, DrawSeries(promotion=promotion), EarningRule())


@permission_required("promotions.change_drawseries", raise_exception=True)
def series_edit(request, series_id: int):
    series = get_object_or_404(DrawSeries.objects.select_related("promotion", "rule"), pk=series_id)
    return _series_form(request, series, series.rule)


def _series_form(request, series: DrawSeries, rule: EarningRule):
    form = SeriesForm(request.POST or None, instance=series, prefix="series")
    rule_form = EarningRuleForm(request.POST or None, instance=rule, prefix="rule")
    saved = None
    # Both forms are checked, so the manager sees every mistake on the page at once.
    rule_ok = rule_form.is_bound and rule_form.is_valid()
    if form.is_bound and form.is_valid() and rule_ok:
        saved = submit(
            request,
            form,
            lambda: services.series_save(
                actor=Actor.from_request(request),
                series=form.save(commit=False),
                eligible_tiers=form.cleaned_data["eligible_tiers"],
                desk_tiers=form.cleaned_data["desk_assisted_tiers"],
                rule=rule_form.save(commit=False),
            ),
        )
    if saved:
        messages.success(request, f"{saved.name} saved.")
        return redirect("promotions:detail", promotion_id=saved.promotion_id)
    context = {"form": form, "rule_form": rule_form, "series": series, "promotion": series.promotion}
    return render(request, "promotions/series_form.html", context)

from django.urls import reverse

# (label, url name, permission[, slot]). A link shows only to those who hold its permission; links
# sharing a slot take one place in the row: the first the user may open, with its own label.
# (Sign-in pauses sit in the account menu and on the manager's start page: the row must fit 1024 px.)
NAVIGATION = [
    ("Member lookup", "members:lookup", "members.view_member"),
    ("Members", "members:list", "members.view_member"),
    ("Sign up a guest", "members:sign_up", "members.add_member"),
    ("Exclusions", "members:exclusions", "members.view_exclusion"),
    ("Promotions", "promotions:list", "promotions.view_promotion"),
    ("Draws", "draws:list", "draws.view_draw"),
    ("Tonight", "draws:tonight", "draws.view_stage"),
    # Prizes (issue 15): the cashier's cash desk (its page links the day's payouts), else the
    # letters report (linking the other two), else the desk's winners still to collect.
    ("Cash desk", "prizes:cash_desk", "prizes.add_payout", "prizes"),
    ("Prizes", "prizes:letter_report", "prizes.view_prizeline", "prizes"),
    ("Prizes", "prizes:uncollected", "prizes.add_prizeletter", "prizes"),
    ("Imports", "members:imports", "members.view_importjob"),
    ("Audit log", "audit", "core.view_auditevent"),
]


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items, slots = [], set()
    for label, name, permission, *slot in NAVIGATION:
        slot = slot[0] if slot else label
        if slot not in slots and user.has_perm(permission):
            slots.add(slot)
            items.append({"label": label, "url": reverse(name)})
    # One active link: the longest address the page is under (/members/ is the lookup's, but a
    # page under /members/imports/ belongs to Imports alone).
    under = [item["url"] for item in items if request.path.startswith(item["url"])]
    current = max(under, key=len, default=None)
    for item in items:
        item["active"] = item["url"] == current
    return {"nav_items": items}

"""The member page's button for the member's own record (core.panels slot "member.records")."""

from django import template

from records.member_record_perms import PERMISSION

register = template.Library()


@register.inclusion_tag("records/member_record_button.html", takes_context=True)
def member_record_button(context, member):
    user = context.get("user")
    return {"member": member, "show": bool(user and user.has_perm(PERMISSION))}

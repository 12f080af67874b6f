"""The memory inspector: table model (lazy, sortable), the inspector widget and the detail panel."""

-- Recall looks for recently closed states that name a query word ("where did I
-- live before?"). Without an index it read every closed state of the space to
-- test its end date, and closed states only accumulate: a slot's history grows
-- with every change. This index holds only closed states, by end date.
CREATE INDEX states_closed ON states (space, valid_to) WHERE active = 0;

-- A quest may point the shopper to where it is done (write a review, follow the shop): the widget
-- opens this link from the quest. http(s) only, checked by the API.
ALTER TABLE quests ADD COLUMN link_url TEXT;

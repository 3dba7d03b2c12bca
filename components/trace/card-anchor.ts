/** A card's anchor: its permalink is the page's address with #e{eventId}. Plain, so server pages can link to cards. */
export const cardAnchor = (eventId: number) => `e${eventId}`;

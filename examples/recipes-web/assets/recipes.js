// The recipe assistant's pages: the cookbook (the saved recipes) and the kitchen (one
// recipe, step by step). Its payloads need no card of their own: the chat tray shows
// them with the generic card, built from their JSON Schemas. This script tells the tray
// where the user is and answers its events: `save_recipe` accepts the recipe on show,
// an accepted recipe joins the cookbook, a kitchen command is done at once. Every value
// from the model is put in the page as text.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const main = $("main");
  const el = Payloads.el;
  const state = { page: "cookbook", recipes: [], recipeId: null, step: 1 };

  function route() {
    const m = /^#\/kitchen\/(\d+)$/.exec(location.hash || "");
    return m ? { page: "kitchen", recipeId: Number(m[1]) } : { page: "cookbook", recipeId: null };
  }

  function crumbs(parts) {
    const nav = $("crumbs");
    nav.replaceChildren();
    parts.forEach((part, i) => {
      if (i > 0) nav.appendChild(document.createTextNode(" / "));
      if (part.href) {
        const a = el("a", null, part.text);
        a.href = part.href;
        nav.appendChild(a);
      } else {
        nav.appendChild(el("span", null, part.text));
      }
    });
  }

  async function render() {
    const where = route();
    if (where.recipeId !== state.recipeId) state.step = 1;
    Object.assign(state, where);
    main.dataset.page = state.page;
    try {
      state.recipes = (await PayloadChat.api("/api/recipes")).recipes;
    } catch (error) {
      main.replaceChildren(el("p", "empty", "Could not load the cookbook: " + error.message));
      return;
    }
    if (state.page === "kitchen") renderKitchen();
    else renderCookbook();
  }

  function renderCookbook() {
    crumbs([{ text: "Cookbook" }]);
    const page = document.createDocumentFragment();
    page.appendChild(el("h1", null, "Your cookbook"));
    if (!state.recipes.length) {
      page.appendChild(el("p", "empty", "No recipes yet. Tell the assistant what you have and like."));
    } else {
      const list = el("ul", "table-list recipes");
      state.recipes.forEach((r) => {
        const li = el("li");
        const a = el("a");
        a.href = "#/kitchen/" + r.id;
        a.dataset.recipeId = String(r.id);
        a.appendChild(el("strong", null, r.title));
        a.appendChild(el("div", "count", "serves " + r.servings));
        li.appendChild(a);
        list.appendChild(li);
      });
      page.appendChild(list);
    }
    main.replaceChildren(page);
  }

  function renderKitchen() {
    const saved = state.recipes.find((r) => r.id === state.recipeId);
    crumbs([{ text: "Cookbook", href: "#/" }, { text: saved ? saved.title : "Kitchen" }]);
    const page = document.createDocumentFragment();
    if (!saved) {
      page.appendChild(el("p", "empty", "No such recipe."));
      main.replaceChildren(page);
      return;
    }
    page.appendChild(el("h1", null, saved.title));
    const steps = el("ol", "steps");
    (saved.recipe.steps || []).forEach((s, i) => {
      const li = el("li", i + 1 === state.step ? "current" : null, s.text);
      li.addEventListener("click", () => {
        state.step = i + 1;
        renderKitchen();
      });
      steps.appendChild(li);
    });
    page.appendChild(steps);
    main.replaceChildren(page);
  }

  // `save_recipe`: accept the recipe the newest answer shows, as its card's Accept
  // button does. An answer that offers several recipes as alternatives leaves the
  // choice to the user: each card has its own Accept, and the button does not guess.
  document.addEventListener("payload:action", (event) => {
    if (event.detail.action !== "save_recipe") return;
    event.preventDefault();
    const answers = document.querySelectorAll(".message.assistant");
    const newest = answers[answers.length - 1];
    const offered = newest ? newest.querySelectorAll('.card[data-type="recipe_proposal"][data-state="proposed"] button.accept') : [];
    const anywhere = document.querySelector('.card[data-type="recipe_proposal"][data-state="proposed"] button.accept');
    if (offered.length > 1) PayloadChat.toast("Pick one of the recipes with its own Accept.");
    else if (offered.length === 1) offered[0].click();
    else if (anywhere) anywhere.click();
    else PayloadChat.toast("There is no recipe to save.");
  });

  document.addEventListener("payload:decided", (event) => {
    if (event.detail.type === "recipe_proposal" && event.detail.status === "accepted") render();
  });

  // A kitchen command is done at once: here, said in a note (a timer, a conversion).
  document.addEventListener("payload:complete", (event) => {
    const payload = event.detail.custom_payload;
    if (!payload || payload.type !== "kitchen_command") return;
    const c = payload.data;
    if (c.command === "set_timer") PayloadChat.toast("Timer: " + c.label + ", " + c.duration + " min");
    else if (c.command === "scale_recipe") PayloadChat.toast("Scaled to " + c.servings + " servings");
  });

  PayloadChat.setContext(() =>
    state.page === "kitchen"
      ? { current_page: "kitchen", recipe_id: state.recipeId, step: state.step }
      : { current_page: "cookbook", saved: state.recipes.length }
  );

  window.addEventListener("hashchange", render);
  render();
})();
